import { ChatBridgeClient, type ClientOptions } from '../client/index.js';
import { resolveDataDir } from '../core/data-dir.js';
import { UsageError } from './args.js';
import { notRunning, serverOrSimulation, type RunningServer } from './server-client.js';
import { CLI } from '../core/cli-name.js';

/** One line telling a person how to get what `ask` and `mcp` need. */
export const KEY_HINT =
  `make a key with "${CLI} keys create --name cli --scopes completions:read,completions:write" and set CHATBRIDGE_API_KEY to it`;

/** Where a client of the running service calls. */
export interface ServiceTarget {
  url: string;
  /** The data dir's server, proven: a client goes over its proven connections. Null for CHATBRIDGE_URL. */
  server: RunningServer | null;
  /**
   * What the same command needs to find this server again (`--data-dir DIR`), or '' when it
   * finds it without flags: the hints a command prints carry it.
   */
  flag: string;
}

/**
 * The running service: CHATBRIDGE_URL, else the server of the data dir or the simulation
 * beside it, proven to hold that data dir's admin token before any key goes there
 * (serverOrSimulation), and then over connections proven the same way.
 */
export async function serviceTarget(dataDirFlag: string | undefined, env: NodeJS.ProcessEnv): Promise<ServiceTarget> {
  if (env.CHATBRIDGE_URL) return { url: env.CHATBRIDGE_URL, server: null, flag: '' };
  const dataDir = resolveDataDir(dataDirFlag, env);
  const server = await serverOrSimulation(dataDir);
  if (!server) throw notRunning(dataDir, `Start it (${CLI} serve) or set CHATBRIDGE_URL.`);
  const flag = server.dataDir === resolveDataDir(undefined, env) ? '' : `--data-dir ${server.dataDir}`;
  return { url: server.url, server, flag };
}

/** A client of the /v1 API at `target` with `apiKey`: over the server's proven connections where it is a data dir's. */
export function serviceClient(target: ServiceTarget, apiKey: string, options: Partial<ClientOptions> = {}): ChatBridgeClient {
  return new ChatBridgeClient({ ...options, baseUrl: target.url, apiKey, ...(target.server ? { agent: target.server.connections } : {}) });
}

/**
 * A client for `chatbridge ask`, and the flag its hints carry (see serviceTarget): with
 * CHATBRIDGE_API_KEY, else (for the proven server of a data dir only) the command line's own key.
 */
export async function askClient(
  dataDirFlag: string | undefined,
  env: NodeJS.ProcessEnv,
  options: Partial<ClientOptions> = {},
): Promise<{ client: ChatBridgeClient; flag: string }> {
  const target = await serviceTarget(dataDirFlag, env);
  const apiKey = env.CHATBRIDGE_API_KEY || (target.server ? await commandLineKey(target.server) : null);
  if (!apiKey) throw new UsageError(`No API key: ${KEY_HINT}.`);
  return { client: serviceClient(target, apiKey, options), flag: target.flag };
}

/**
 * The command line's own key, which the server makes once and keeps in its data folder:
 * the jobs `ask` sends are the command line's in Usage, not the dashboard's, and what `ask`
 * sends is a key of two scopes, never the admin token.
 */
async function commandLineKey(server: RunningServer): Promise<string> {
  const res = await server.call('POST', '/admin/v1/keys/command-line');
  if (!res.ok) throw new UsageError(`ChatBridge at ${server.url} gave no key for the command line (HTTP ${res.status}): restart it if it is older than this command line, or ${KEY_HINT}.`);
  return ((await res.json()) as { secret: string }).secret;
}
