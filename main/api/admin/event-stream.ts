import type { FastifyReply, FastifyRequest } from 'fastify';

/** Keeps proxies and idle timeouts from closing a quiet event stream. */
const HEARTBEAT_MS = 25_000;

/** `start` begins sending (`end` closes the stream) and returns what stops it. */
export type StreamStart = (send: (event: string, data: unknown) => void, end: () => void) => () => void;

/** The dashboard's open server-sent event streams, which end together at shutdown or when the admin token changes. */
export class EventStreams {
  private readonly open = new Set<() => void>();

  endAll(): void {
    for (const end of [...this.open]) end();
  }

  /** Answers `request` with server-sent events, started by `start`. */
  answer(request: FastifyRequest, reply: FastifyReply, start: StreamStart): void {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': String(request.id),
      connection: 'keep-alive',
    });
    // The client knows the stream is open before the first event (a page's first frame may take a while).
    res.flushHeaders();
    let stop: (() => void) | null = null;
    let ended = false;
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const end = () => {
      if (ended) return;
      ended = true;
      this.open.delete(end);
      stop?.();
      clearInterval(heartbeat);
      res.end();
    };
    this.open.add(end);
    res.on('close', end);
    // What is read asynchronously (the state) may come after the stream ended: it is dropped.
    stop = start((event, data) => {
      if (!ended) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }, end);
    // `start` may have ended the stream at once (a page already gone): stop what it began.
    if (ended) stop();
  }
}
