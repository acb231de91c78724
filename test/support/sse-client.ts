/** A server-sent event as a test reads it: a `: comment` line has `comment` set instead. */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/**
 * Opens `url` as an event stream and collects its events as they come. `done` resolves when
 * the server ends the stream; `close()` hangs up as a client going away does.
 */
export async function openSse(
  url: string,
  headers: Record<string, string>,
  init: { method?: string; body?: string } = {},
): Promise<{ status: number; headers: Headers; events: SseEvent[]; done: Promise<void>; close(): void; text(): Promise<string> }> {
  const controller = new AbortController();
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, signal: controller.signal });
  const events: SseEvent[] = [];
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const body = res.text();
    return { status: res.status, headers: res.headers, events, done: body.then(() => {}), close: () => controller.abort(), text: () => body };
  }
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) event.comment = line.slice(1).trim();
            else {
              const at = line.indexOf(': ');
              const [name, value] = at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 2)];
              if (name === 'id' || name === 'event' || name === 'data') event[name] = value;
            }
          }
          events.push(event);
        }
      }
    } catch {
      // Hung up by close().
    }
  })();
  return { status: res.status, headers: res.headers, events, done, close: () => controller.abort(), text: async () => '' };
}
