import type { FastifyReply, FastifyRequest } from 'fastify';

/** A quiet stream gets a comment this often, so proxies and idle timeouts keep it open (decisions.md: 15 s). */
export const KEEP_ALIVE_MS = 15_000;

/**
 * A client whose socket has taken nothing for this many keep-alive periods (60 s at 15 s) has
 * stopped reading: a suspended laptop, a stuck consumer. Far longer than any pause of a live
 * reader (a GC, a hiccup of the network), short enough that a dead reader does not hold its
 * connection slot, its hold on the key's and account's caps, and the answer's copy for long.
 */
export const STALL_KEEP_ALIVES = 4;

/**
 * What may wait in the process for a client that does not read, on top of what the kernel
 * holds (on loopback some 4 MB): above one job event at its largest (a 100 000-character
 * prompt and its answer, up to 4 bytes a character), so one big event to a reader momentarily
 * behind is not cut, yet 200 dead readers hold 200 MiB at most, not every answer whole.
 */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/** An open text/event-stream answer. */
export interface EventStream {
  /** One event: `data` is written as it is (one line: JSON), with its `event` name and `id` when given. */
  send(data: string, options?: { event?: string; id?: string }): void;
  /** Ends the stream (idempotent). */
  end(): void;
  /** The client went away, or the stream was ended. */
  readonly closed: boolean;
  /** Told once when the client goes away before the stream ended (or stopped reading and was cut). */
  onClientGone(listener: () => void): void;
}

/**
 * Answers `request` with a server-sent event stream: the route's hooks (Host check,
 * authentication, rate limit) have run, and its own checks too, so everything from here on
 * is events. The headers go at once (a job may wait in the queue long before its first
 * event), a `: keep-alive` comment every `keepAliveMs`, and the client's going away stops
 * the keep-alive and tells `onClientGone`, so no timer or subscription outlives it.
 *
 * Writes never wait for the client: each stream's bytes queue on its own socket, so a slow
 * reader delays nobody else's events. A reader that stops is cut as one gone: once its socket
 * has drained nothing for STALL_KEEP_ALIVES keep-alive periods, or over MAX_BUFFERED_BYTES
 * wait for it in the process.
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
  const stallMs = STALL_KEEP_ALIVES * keepAliveMs;
  /** Bytes the kernel took from this stream so far: what the client's reading lets through. */
  const drained = () => (res.socket ? res.socket.bytesWritten - res.socket.writableLength : 0);
  /** Set while bytes wait in the process for the client; looks every `stallMs` whether any went. */
  let stalled: NodeJS.Timeout | undefined;
  const watch = (from: number) => {
    stalled = setTimeout(() => (drained() > from ? watch(drained()) : cut()), stallMs);
  };
  // Cut as a client that hung up: the route stops following (a chat stream cancels its job).
  const cut = () => res.destroy();
  const write = (text: string) => {
    if (res.destroyed || res.write(text)) return;
    if (res.writableLength > MAX_BUFFERED_BYTES) return cut();
    if (!stalled) watch(drained());
  };
  res.on('drain', () => {
    clearTimeout(stalled);
    stalled = undefined;
  });
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
  const close = () => {
    if (closed) return false;
    closed = true;
    clearInterval(keepAlive);
    clearTimeout(stalled);
    return true;
  };
  res.on('close', () => {
    if (close()) for (const listener of gone) listener();
  });
  return {
    send(data, { event, id } = {}) {
      if (closed) return;
      write(`${id !== undefined ? `id: ${id}\n` : ''}${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
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
