import type { Clock } from '../core/clock.js';

import { LOG_LEVELS, type LogLevel, type LogSource } from '../contract/enumerations.js';

export interface LogEntry {
  /** Increases by one per entry in this run; the dashboard orders and de-duplicates by it. */
  seq: number;
  /** Milliseconds since the Unix epoch, from the injected clock. */
  at: number;
  level: LogLevel;
  source: LogSource;
  /** One line in plain words. Never a prompt or an answer: ids, states and codes only. */
  message: string;
}

type Listener = (entry: LogEntry) => void;

/** Keeps the dashboard's log small: a person reads the last few hundred lines, not a history. */
export const LOG_CAPACITY = 1_000;

const rank = (level: LogLevel) => LOG_LEVELS.indexOf(level);

/**
 * The recent things a person needs to see (an agent needs a login, a job failed, a webhook
 * receiver refused), kept in memory only: the log is for "what just happened", the
 * database already holds the durable record of jobs and deliveries. A fixed-size ring, so a
 * noisy hour costs the same memory as a quiet one; the oldest entries fall off.
 */
export class LogBook {
  private readonly ring: (LogEntry | undefined)[];
  /** The seq of the next entry; also how many were ever added. */
  private next = 1;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly clock: Clock,
    readonly capacity = LOG_CAPACITY,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('A log needs room for at least one entry');
    this.ring = new Array<LogEntry | undefined>(capacity);
  }

  add(level: LogLevel, source: LogSource, message: string): LogEntry {
    const entry: LogEntry = { seq: this.next++, at: this.clock.now(), level, source, message };
    this.ring[entry.seq % this.capacity] = entry;
    // A listener that throws (a closed stream) must not cost the others their entry.
    for (const listener of [...this.listeners]) {
      try {
        listener(entry);
      } catch {
        /* the listener's own problem */
      }
    }
    return entry;
  }

  info(source: LogSource, message: string): LogEntry {
    return this.add('info', source, message);
  }

  warn(source: LogSource, message: string): LogEntry {
    return this.add('warn', source, message);
  }

  error(source: LogSource, message: string): LogEntry {
    return this.add('error', source, message);
  }

  /** The newest `limit` entries at `minLevel` or above, oldest first. */
  recent(limit = this.capacity, { minLevel = 'info' }: { minLevel?: LogLevel } = {}): LogEntry[] {
    const out: LogEntry[] = [];
    const min = rank(minLevel);
    const oldest = Math.max(1, this.next - this.capacity);
    for (let seq = this.next - 1; seq >= oldest && out.length < limit; seq--) {
      const entry = this.ring[seq % this.capacity]!;
      if (rank(entry.level) >= min) out.push(entry);
    }
    return out.reverse();
  }

  /** `listener` hears every entry added from now on. Returns the function that stops it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
