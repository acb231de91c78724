import { existsSync } from 'node:fs';
import { simulationDir } from '../core/data-dir.js';
import { adminToken, readServerInfo } from '../core/runtime-files.js';
import { checkServer } from '../keys/server-proof.js';
import { UsageError } from './args.js';

/** The running server of a data dir, proven to be ours, and a way to call it with the admin token. */
export interface RunningServer {
  url: string;
  /** The data dir it serves: `serve --simulate` serves `<data dir>/simulator`. */
  dataDir: string;
  /** `body`, if given, goes as JSON; the call gives up after `timeoutMs`. */
  call(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<Response>;
  /** The dashboard at a page (`/agents/add`), signed in through the link's fragment. */
  dashboardLink(route: string): string;
}

/**
 * Finds the server of `dataDir` and checks, before the admin token goes anywhere, that the
 * process named in server.json is alive and that what answers at its address proves it
 * holds this data dir's admin token (checkServer). Every command that calls the running
 * server goes through here.
 */
export async function runningServer(dataDir: string): Promise<RunningServer | null> {
  const info = readServerInfo(dataDir);
  if (!info) return null;
  const token = adminToken(dataDir);
  const check = await checkServer(info, token);
  switch (check.kind) {
    case 'not_loopback':
      throw new UsageError(`server.json in ${dataDir} points at ${info.url}, which is not this machine's loopback: the admin token is not sent there.`);
    case 'unreachable':
      throw new UsageError(`Could not reach ChatBridge at ${info.url}: ${check.message}`);
    case 'other':
      throw new UsageError(
        `What answers at ${info.url} is not the ChatBridge of ${dataDir} (it cannot prove it holds this data dir's admin token): the token is not sent there.`,
      );
  }
  const { reach } = check;
  return {
    url: info.url,
    dataDir,
    call: (method, path, body, timeoutMs = 30_000) =>
      fetch(`${reach}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      }),
    dashboardLink: (route) => `${info.url}/#${route}&token=${token}`,
  };
}

/**
 * The server of `dataDir`, else the simulation `serve --simulate` runs beside it (in
 * `<data dir>/simulator`): what `ask`, `status` and `mcp` call, so that the README's
 * `serve --simulate` then `ask` works without a flag.
 */
export async function serverOrSimulation(dataDir: string): Promise<RunningServer | null> {
  return (await runningServer(dataDir)) ?? (existsSync(simulationDir(dataDir)) ? await runningServer(simulationDir(dataDir)) : null);
}

/**
 * "ChatBridge is not running for DIR", and the way forward: the flag that reaches a
 * simulation running beside it, or how to start it (`start`, e.g. "Start it: chatbridge serve").
 */
export function notRunning(dataDir: string, start: string): UsageError {
  const simulation = simulationDir(dataDir);
  if (readServerInfo(simulation)) {
    return new UsageError(`ChatBridge is not running for ${dataDir}, but a simulation is (serve --simulate): add --data-dir ${simulation}`);
  }
  return new UsageError(`ChatBridge is not running for ${dataDir}. ${start}`);
}
