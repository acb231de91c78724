import type { FastifyReply, FastifyRequest } from 'fastify';

/** A quiet stream gets a comment this often, so proxies and idle timeouts keep it open (decisions.md: 15 s). */
export const KEEP_ALIVE_MS = 15_000;

/** An open text/event-stream answer. */
export interface EventStream {
  /** One event: `data` is written as it is (one line: JSON), with its `event` name and `id` when given. */
  send(data: string, options?: { event?: string; id?: string }): void;
  /** Ends the stream (idempotent). */
  end(): void;
  /** The client went away, or the stream was ended. */
  readonly closed: boolean;
  /** Told once when the client goes away before the stream ended. */
  onClientGone(listener: () => void): void;
}

/**
 * Answers `request` with a server-sent event stream: the route's hooks (Host check,
 * authentication, rate limit) have run, and its own checks too, so everything from here on
 * is events. The headers go at once (a job may wait in the queue long before its first
 * event), a `: keep-alive` comment every `keepAliveMs`, and the client's going away stops
 * the keep-alive and tells `onClientGone`, so no timer or subscription outlives it.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply, keepAliveMs: number): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-request-id': String(request.id),
    // Proxies that buffer (nginx) pass each event on as it comes.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  let closed = false;
  const gone: (() => void)[] = [];
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  const close = () => {
    if (closed) return false;
    closed = true;
    clearInterval(keepAlive);
    return true;
  };
  res.on('close', () => {
    if (close()) for (const listener of gone) listener();
  });
  return {
    send(data, { event, id } = {}) {
      if (closed) return;
      res.write(`${id !== undefined ? `id: ${id}\n` : ''}${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
    },
    end() {
      if (close()) res.end();
    },
    get closed() {
      return closed;
    },
    onClientGone(listener) {
      gone.push(listener);
    },
  };
}
