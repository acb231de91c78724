import { existsSync } from 'node:fs';
import type { Agent } from 'node:http';
import { send } from '../client/http.js';
import { simulationDir } from '../core/data-dir.js';
import { adminToken, readServerInfo } from '../core/runtime-files.js';
import { ProvenConnections } from '../keys/proven-connections.js';
import { checkServer } from '../keys/server-proof.js';
import { UsageError } from './args.js';

/** The running server of a data dir, proven to be ours, and a way to call it with the admin token. */
export interface RunningServer {
  url: string;
  /** The data dir it serves: `serve --simulate` serves `<data dir>/simulator`. */
  dataDir: string;
  /**
   * The connections to it, each proven on itself before anything goes on it (ProvenConnections):
   * `call` goes over them, and so does a client of its /v1 API given them.
   */
  connections: Agent;
  /**
   * `body`, if given, goes as JSON; the call gives up after `timeoutMs`. No answer (or no
   * proof on a new connection) is a UsageError saying so.
   */
  call(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<Response>;
  /** The dashboard at a page (`/agents/add`), signed in through the link's fragment. */
  dashboardLink(route: string): string;
}

/**
 * Finds the server of `dataDir` and checks, before the admin token goes anywhere, that the
 * process named in server.json is alive and that what answers at its address proves it
 * holds this data dir's admin token (checkServer). Every command that calls the running
 * server goes through here, and every call after over connections proven the same way.
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
  const connections = new ProvenConnections(token, info.url);
  return {
    url: info.url,
    dataDir,
    connections,
    call: async (method, path, body, timeoutMs = 30_000) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const signal = AbortSignal.timeout(timeoutMs);
      const call = { method, headers, signal, idleTimeoutMs: timeoutMs, agent: connections };
      const answer = await send(new URL(path, reach), body === undefined ? call : { ...call, body: JSON.stringify(body) }).catch((error: Error) => {
        throw new UsageError(signal.aborted ? `ChatBridge at ${info.url} did not answer ${method} ${path} in ${timeoutMs / 1000} s.` : error.message);
      });
      // A web Response, as fetch gave: the commands read it the same way.
      return new Response(answer.body === '' ? null : answer.body, { status: answer.status });
    },
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
