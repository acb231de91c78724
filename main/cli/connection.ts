import { ChatBridgeClient, type ClientOptions } from '../client/index.js';
import { resolveDataDir } from '../core/data-dir.js';
import { readAdminToken } from '../core/runtime-files.js';
import { UsageError } from './args.js';
import { notRunning, serverOrSimulation } from './server-client.js';
import { CLI } from '../core/cli-name.js';

/** One line telling a person how to get what `ask` and `mcp` need. */
export const KEY_HINT =
  `make a key with "${CLI} keys create --name cli --scopes completions:read,completions:write" and set CHATBRIDGE_API_KEY to it`;

/** Where a client of the running service calls, and with which key. */
export interface ServiceTarget {
  url: string;
  /** CHATBRIDGE_API_KEY, else (for the proven server of a data dir only) its admin token. */
  apiKey: string | null;
  /**
   * What the same command needs to find this server again (`--data-dir DIR`), or '' when it
   * finds it without flags: the hints a command prints carry it.
   */
  flag: string;
}

/**
 * The running service: CHATBRIDGE_URL (sent only CHATBRIDGE_API_KEY), else the server of
 * the data dir or the simulation beside it, proven to hold that data dir's admin token
 * before any key goes there (serverOrSimulation). Whoever can read the admin token file
 * (its owner only) already controls the service, so without CHATBRIDGE_API_KEY that token
 * is the key, when `adminTokenAsKey` allows it.
 */
export async function serviceTarget(dataDirFlag: string | undefined, env: NodeJS.ProcessEnv, adminTokenAsKey: boolean): Promise<ServiceTarget> {
  const envKey = env.CHATBRIDGE_API_KEY || null;
  if (env.CHATBRIDGE_URL) return { url: env.CHATBRIDGE_URL, apiKey: envKey, flag: '' };
  const dataDir = resolveDataDir(dataDirFlag, env);
  const server = await serverOrSimulation(dataDir);
  if (!server) throw notRunning(dataDir, `Start it (${CLI} serve) or set CHATBRIDGE_URL.`);
  const flag = server.dataDir === resolveDataDir(undefined, env) ? '' : `--data-dir ${server.dataDir}`;
  return { url: server.url, apiKey: envKey ?? (adminTokenAsKey ? readAdminToken(server.dataDir) : null), flag };
}

/** A client for `chatbridge ask`, and the flag its hints carry (see serviceTarget). */
export async function askClient(
  dataDirFlag: string | undefined,
  env: NodeJS.ProcessEnv,
  options: Partial<ClientOptions> = {},
): Promise<{ client: ChatBridgeClient; flag: string }> {
  const { url, apiKey, flag } = await serviceTarget(dataDirFlag, env, true);
  if (!apiKey) throw new UsageError(`No API key: ${KEY_HINT}.`);
  return { client: new ChatBridgeClient({ ...options, baseUrl: url, apiKey }), flag };
}
