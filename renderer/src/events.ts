/**
 * Reads /admin/v1/events. EventSource cannot send an Authorization header, so this reads
 * the server-sent events from a streamed fetch and reconnects with growing pauses.
 */
export interface EventHandlers {
  onOpen(): void;
  onEvent(name: string, data: unknown): void;
  /** The stream dropped; the next try starts in `retryInMs`. */
  onDown(retryInMs: number): void;
  onUnauthorized(): void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** Starts the stream (the dashboard's, or another such as an agent's screen); the returned function stops it for good. */
export function streamEvents(token: string, handlers: EventHandlers, fetchFn: typeof fetch = fetch, path = '/admin/v1/events'): () => void {
  const controller = new AbortController();
  let retryMs = FIRST_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async () => {
    try {
      const res = await fetchFn(path, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
      if (res.status === 401) return handlers.onUnauthorized();
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      retryMs = FIRST_RETRY_MS;
      handlers.onOpen();
      await readEvents(res.body, handlers.onEvent);
    } catch {
      // Dropped or refused: fall through to the retry, unless we were stopped.
    }
    if (controller.signal.aborted) return;
    handlers.onDown(retryMs);
    timer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };
  void connect();

  return () => {
    controller.abort();
    clearTimeout(timer);
  };
}

/** Splits the stream into events (blank-line separated); comment lines are keep-alives. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (name: string, data: unknown) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) onEvent(name, JSON.parse(data.join('\n')));
    }
  }
}
