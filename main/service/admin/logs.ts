import type { LogEntryView } from '../../contract/admin/logs.js';
import { timestamp } from '../../core/timestamps.js';
import type { LogBook, LogEntry } from '../../logs/log-book.js';
import type { LogLevel } from '../../contract/enumerations.js';

/** The service's recent log, as the dashboard reads it and hears it grow. */
export class LogsConsole {
  constructor(private readonly log: LogBook) {}

  /** The newest `limit` log entries at `minLevel` or above, oldest first. */
  recent(limit: number, minLevel: LogLevel = 'info'): LogEntryView[] {
    return this.log.recent(Math.min(Math.max(limit, 1), this.log.capacity), { minLevel }).map(logEntryView);
  }

  /** Hears every new entry; returns the function that stops it. */
  subscribe(listener: (entry: LogEntryView) => void): () => void {
    return this.log.subscribe((entry) => listener(logEntryView(entry)));
  }
}

function logEntryView(e: LogEntry): LogEntryView {
  return { seq: e.seq, at: timestamp(e.at), level: e.level, source: e.source, message: e.message };
}
