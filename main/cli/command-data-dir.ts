import { resolveDataDir, simulationDir } from '../core/data-dir.js';
import { readServerInfo } from '../core/runtime-files.js';
import { holdsDatabase } from '../storage/storage.js';

/** What was said already: a command that resolves its data dir twice says it once. */
const told = new Set<string>();

/**
 * The data dir a command acts on: --data-dir, else CHATBRIDGE_DATA_DIR, else the OS data
 * folder. A simulation (`serve --simulate`) runs in `<data dir>/simulator`; while one runs
 * and no server runs for the folder itself, a command not given --data-dir
 * - finds the simulation (as `ask` and `status` do) when the folder holds nothing yet and
 *   was not named by CHATBRIDGE_DATA_DIR: a person trying ChatBridge without accounts;
 * - else acts on the folder, saying so in one line with the flag that reaches the simulation.
 * Either way the line goes to stderr, so what a command prints on stdout stays as it is.
 */
export function commandDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dataDir = resolveDataDir(flag, env);
  const simulation = simulationDir(dataDir);
  if (flag || readServerInfo(dataDir) || !readServerInfo(simulation)) return dataDir;
  if (!env.CHATBRIDGE_DATA_DIR && !holdsDatabase(dataDir)) {
    tell(`chatbridge: acting on the simulation (serve --simulate) in ${simulation}: ${dataDir} holds nothing yet.`);
    return simulation;
  }
  tell(`chatbridge: acting on ${dataDir}; a simulation (serve --simulate) runs beside it: add --data-dir ${simulation} to act on that.`);
  return dataDir;
}

function tell(line: string): void {
  if (told.has(line)) return;
  told.add(line);
  process.stderr.write(`${line}\n`);
}
