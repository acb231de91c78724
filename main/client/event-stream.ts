import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One server-sent event as it came: its id, name and data (comments are left out). */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Opens a server-sent event stream with node:http: resolves with the response once its
 * headers came (the caller reads a non-200's body as an error), or rejects with the network
 * failure. `messages` reads the events of a 200 until the server ends the stream; a cut or a
 * silence of `idleTimeoutMs` (keep-alives come every 15 s) ends it with an error.
 */
export function openEventStream(
  url: URL,
  call: { headers: Record<string, string>; signal?: AbortSignal; idleTimeoutMs: number; agent?: Agent; method?: string; body?: string },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (call.signal?.aborted) return reject(call.signal.reason);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { method: call.method ?? 'GET', headers: { accept: 'text/event-stream', ...call.headers }, timeout: call.idleTimeoutMs, agent: call.agent });
    call.signal?.addEventListener('abort', () => req.destroy(call.signal!.reason), { once: true });
    req.on('timeout', () => req.destroy(new Error(`nothing for ${Math.round(call.idleTimeoutMs / 1000)} s`)));
    req.on('error', reject);
    req.on('response', resolve);
    req.end(call.body);
  });
}

/** The events of a stream's body, in order; ends when the server ends it, throws when it is cut. */
export async function* messages(res: IncomingMessage): AsyncGenerator<SseMessage> {
  let buffer = '';
  let complete = false;
  res.once('end', () => (complete = true));
  res.setEncoding('utf8');
  for await (const chunk of res as AsyncIterable<string>) {
    buffer += chunk.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: Partial<SseMessage> = {};
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':') || line === '') continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'data') data.push(value);
        else if (name === 'id' || name === 'event') message[name] = value;
      }
      if (data.length > 0) yield { ...message, data: data.join('\n') };
    }
  }
  if (!complete) throw new Error('the event stream was cut');
}
