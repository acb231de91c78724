import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ChatBridgeError, NETWORK_ERROR } from './errors.js';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpCall {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** A socket silent this long is given up (a network failure): above the service's 600 s hold. */
  idleTimeoutMs: number;
  /** The connections to use; node:http's global agent when not given. */
  agent?: Agent;
}

/**
 * One HTTP exchange with node:http rather than fetch: fetch (undici) gives up on an answer
 * whose headers take over 300 s, and a `wait: true` hold legitimately takes up to 600 s.
 * Rejects with NETWORK_ERROR when no answer came, or with the signal's reason on abort.
 */
export function send(url: URL, call: HttpCall): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    if (call.signal?.aborted) return reject(call.signal.reason);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { method: call.method, headers: call.headers, timeout: call.idleTimeoutMs, agent: call.agent });
    const onAbort = () => req.destroy(call.signal!.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => call.signal?.removeEventListener('abort', onAbort);

    req.on('timeout', () => req.destroy(new Error(`no answer for ${Math.round(call.idleTimeoutMs / 1000)} s`)));
    const fail = (error: Error) => {
      settle();
      if (call.signal?.aborted) return reject(call.signal.reason);
      reject(new ChatBridgeError(NETWORK_ERROR, 0, `ChatBridge at ${url.origin} did not answer: ${error.message}`));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A connection dropped mid-answer: the answer is as good as none.
      res.on('error', fail);
      res.on('end', () => {
        settle();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end(call.body);
  });
}
