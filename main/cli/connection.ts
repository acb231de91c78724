import { ChatBridgeClient, type ClientOptions } from '../client/index.js';
import { resolveDataDir } from '../core/data-dir.js';
import { readAdminToken, readServerInfo } from '../core/runtime-files.js';
import { UsageError } from './args.js';

/** One line telling a person how to get what `ask` and `mcp` need. */
export const KEY_HINT =
  'make a key with "chatbridge keys create --name cli --scopes completions:read,completions:write" and set CHATBRIDGE_API_KEY to it';

/**
 * The running service's address: CHATBRIDGE_URL, else what the server of the data dir
 * wrote in its server.json (as `chatbridge status` finds it).
 */
export function serviceUrl(dataDir: string, env: NodeJS.ProcessEnv): { url: string; local: boolean } {
  if (env.CHATBRIDGE_URL) return { url: env.CHATBRIDGE_URL, local: false };
  const server = readServerInfo(dataDir);
  if (!server) throw new UsageError(`ChatBridge is not running for ${dataDir}. Start it (chatbridge serve) or set CHATBRIDGE_URL.`);
  return { url: server.url, local: true };
}

/**
 * A client for `chatbridge ask`, keyed with CHATBRIDGE_API_KEY, or else with the
 * dashboard's token of the data dir, as `chatbridge status` is: whoever can read that file
 * (its owner only) already controls the service, and it is sent only to the server that
 * data dir names, never to a CHATBRIDGE_URL elsewhere.
 */
export function askClient(dataDirFlag: string | undefined, env: NodeJS.ProcessEnv, options: Partial<ClientOptions> = {}): ChatBridgeClient {
  const dataDir = resolveDataDir(dataDirFlag, env);
  const { url, local } = serviceUrl(dataDir, env);
  const apiKey = env.CHATBRIDGE_API_KEY || (local ? readAdminToken(dataDir) : null);
  if (!apiKey) throw new UsageError(`No API key: ${KEY_HINT}.`);
  return new ChatBridgeClient({ ...options, baseUrl: url, apiKey });
}
