import type pg from 'pg';
import { ChannelListener } from './channel-listener.js';
import type { AttemptStart, JobRow, JobStatus, StoreEvent } from '../../core/jobs.js';

/**
 * The channel on which each transaction announces the jobs it moved, as `[device, job id,
 * from]` JSON (and, for a dispatch, the attempt it started: every instance counts the hourly
 * caps' starts), one notification per job. PostgreSQL delivers a NOTIFY only when its
 * transaction commits, so other instances never hear of a move that rolled back.
 */
const CHANNEL = 'chatbridge_jobs';

/**
 * Commits the transaction that made `events`, announcing them to the other instances in the
 * same round trip: the notices and the COMMIT go as one simple query (so the payloads are
 * escaped here, not bound), which keeps a move's locks one round trip shorter.
 */
export async function commitAnnouncing(c: pg.PoolClient, deviceId: string, events: readonly StoreEvent[]): Promise<void> {
  const notices = events.map((e) => JSON.stringify(e.start ? [deviceId, e.job.id, e.from, e.start] : [deviceId, e.job.id, e.from]));
  await c.query([...notices.map((n) => `SELECT pg_notify('${CHANNEL}', ${c.escapeLiteral(n)});`), 'COMMIT'].join('\n'));
}

/**
 * Hears the moves other instances announce: each announced job is re-read (those waiting
 * together in one query) and handed on in the order announced, as the job is now. Holds one
 * connection of the pool. What is announced while that connection is lost (until it is
 * back, a second later) is not heard: whoever must not miss a job re-reads the store.
 */
export class JobNotices {
  private readonly listener: ChannelListener;
  private closed = false;
  private waiting: { id: string; from: JobStatus | null; start: AttemptStart | undefined }[] = [];
  private draining = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly deviceId: string,
    private readonly publish: (events: StoreEvent[]) => void,
  ) {
    this.listener = new ChannelListener(pool, CHANNEL, (payload) => this.heard(payload));
  }

  listen(): Promise<void> {
    return this.listener.listen();
  }

  /** Stops listening; call before the pool ends. */
  close(): void {
    this.closed = true;
    this.listener.close();
  }

  private heard(payload: string | undefined): void {
    const [device, id, from, start] = JSON.parse(payload ?? '[]') as [string, string, JobStatus | null, AttemptStart?];
    if (device === this.deviceId) return;
    this.waiting.push({ id, from, start });
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.waiting.length > 0 && !this.closed) {
      const batch = this.waiting.splice(0);
      // A read that fails (the pool closing, the database gone) loses these events, as a lost
      // listening connection would: there is nothing to report to, and nothing else is harmed.
      const rows = await this.pool
        .query<JobRow>(`SELECT * FROM jobs WHERE id = ANY($1)`, [[...new Set(batch.map((n) => n.id))]])
        .then((r) => r.rows, () => []);
      const now = new Map(rows.map((job) => [job.id, job]));
      if (!this.closed) this.publish(batch.flatMap(({ id, from, start }) => (now.has(id) ? [start ? { job: now.get(id)!, from, start } : { job: now.get(id)!, from }] : [])));
    }
    this.draining = false;
  }
}
