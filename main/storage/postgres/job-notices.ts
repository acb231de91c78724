import type pg from 'pg';
import { ChannelListener } from './channel-listener.js';
import { JOB_STATUSES, type AttemptStart, type JobRow, type JobStatus, type StoreEvent } from '../../core/jobs.js';

/**
 * The channel on which each transaction announces the jobs it moved, as `[device, job id,
 * from]` JSON (and, for a dispatch, the number of the attempt it started), one notification
 * per job. PostgreSQL delivers a NOTIFY only when its transaction commits, so other
 * instances never hear of a move that rolled back.
 */
const CHANNEL = 'chatbridge_jobs';

/**
 * How far before the listening connection was lost the catch-up reads: the times in the rows
 * are each writer's clock, which may be a little behind ours.
 */
const CLOCK_SKEW_MS = 10_000;

/**
 * Commits the transaction that made `events`, announcing them to the other instances in the
 * same round trip: the notices and the COMMIT go as one simple query (so the payloads are
 * escaped here, not bound), which keeps a move's locks one round trip shorter.
 */
export async function commitAnnouncing(c: pg.PoolClient, deviceId: string, events: readonly StoreEvent[]): Promise<void> {
  const notices = events.map((e) => JSON.stringify(e.start ? [deviceId, e.job.id, e.from, e.start.attempt] : [deviceId, e.job.id, e.from]));
  await c.query([...notices.map((n) => `SELECT pg_notify('${CHANNEL}', ${c.escapeLiteral(n)});`), 'COMMIT'].join('\n'));
}

/** What a notice says: which job moved, from where, and which attempt a dispatch started. */
interface Notice {
  device: string;
  id: string;
  from: JobStatus | null;
  attempt: number | undefined;
}

/**
 * A notice as announced by commitAnnouncing, or an error saying why it is not one. Anyone
 * who can connect may send on the channel, so the shape is checked, and nothing in it is
 * taken as a fact beyond which job to read again.
 */
export function parseNotice(payload: string): Notice {
  const value: unknown = JSON.parse(payload);
  if (!Array.isArray(value) || value.length < 3 || value.length > 4) throw new Error('not a [device, job, from] list');
  const [device, id, from, attempt] = value as unknown[];
  if (typeof device !== 'string' || typeof id !== 'string' || id.length === 0 || id.length > 100) throw new Error('no device or job id');
  if (from !== null && !JOB_STATUSES.includes(from as JobStatus)) throw new Error('no status it moved from');
  if (attempt !== undefined && !(Number.isSafeInteger(attempt) && (attempt as number) > 0)) throw new Error('no attempt number');
  return { device, id, from: from as JobStatus | null, attempt: attempt as number | undefined };
}

/**
 * Hears the moves other instances announce: each announced job is re-read (those waiting
 * together in one query), with the attempt a dispatch started read from the attempts table,
 * and handed on in the order announced, as the job is now. Holds one connection of the pool.
 * What is announced while that connection is lost is not heard: once it listens again, the
 * jobs that moved since (queued, started, finished) are read and handed on.
 */
export class JobNotices {
  private readonly listener: ChannelListener;
  private closed = false;
  private waiting: Notice[] = [];
  private draining = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly deviceId: string,
    private readonly publish: (events: StoreEvent[]) => void,
  ) {
    this.listener = new ChannelListener(
      pool,
      CHANNEL,
      (payload) => this.heard(parseNotice(payload)),
      (lostAt) => void this.catchUp(lostAt - CLOCK_SKEW_MS),
    );
  }

  listen(): Promise<void> {
    return this.listener.listen();
  }

  /** Stops listening; call before the pool ends. */
  close(): void {
    this.closed = true;
    this.listener.close();
  }

  private heard(notice: Notice): void {
    if (notice.device === this.deviceId) return;
    this.waiting.push(notice);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.waiting.length > 0 && !this.closed) {
      const batch = this.waiting.splice(0);
      // A read that fails (the pool closing, the database gone) loses these events, as a lost
      // listening connection would: there is nothing to report to, and nothing else is harmed.
      const read = await this.read(batch).catch(() => undefined);
      if (!read || this.closed) continue;
      const { jobs, starts } = read;
      this.publish(
        batch.flatMap(({ id, from, attempt }) => {
          const job = jobs.get(id);
          if (!job) return [];
          const start = attempt === undefined ? undefined : starts.get(`${id}:${attempt}`);
          return [start ? { job, from, start } : { job, from }];
        }),
      );
    }
    this.draining = false;
  }

  /** The jobs the notices name, and the attempt starts they name, as our tables have them. */
  private async read(batch: Notice[]): Promise<{ jobs: Map<string, JobRow>; starts: Map<string, AttemptStart> }> {
    const ids = [...new Set(batch.map((n) => n.id))];
    const named = batch.filter((n) => n.attempt !== undefined);
    const [jobs, starts] = await Promise.all([
      this.pool.query<JobRow>(`SELECT * FROM jobs WHERE id = ANY($1)`, [ids]),
      named.length === 0
        ? { rows: [] }
        : this.pool.query<AttemptStart>(
            `SELECT job_id, attempt, agent_id, provider, started_at FROM attempts
             WHERE (job_id, attempt) IN (SELECT * FROM unnest($1::text[], $2::int[]))`,
            [named.map((n) => n.id), named.map((n) => n.attempt)],
          ),
    ]);
    return { jobs: new Map(jobs.rows.map((j) => [j.id, j])), starts: new Map(starts.rows.map((s) => [`${s.job_id}:${s.attempt}`, s])) };
  }

  /**
   * Hands on, as if heard, the moves made since `since` that may have been announced while
   * nobody listened: each attempt started since (for the hourly counts), then each job that
   * was queued, re-queued or finished since, as it is now. A move heard twice is harmless:
   * events are hints to look again, and a start is counted once.
   */
  private async catchUp(since: number): Promise<void> {
    const read = await this.pool
      .query<JobRow & { since_start: AttemptStart[] | null }>(
        `SELECT j.*, (SELECT json_agg(json_build_object('job_id', a.job_id, 'attempt', a.attempt, 'agent_id', a.agent_id,
                        'provider', a.provider, 'started_at', a.started_at) ORDER BY a.attempt)
                      FROM attempts a WHERE a.job_id = j.id AND a.started_at >= $1) AS since_start
         FROM jobs j WHERE j.id IN (
           SELECT id FROM jobs WHERE status = 'queued' AND (attempts > 0 OR created_at >= $1)
           UNION SELECT id FROM jobs WHERE finished_at >= $1
           UNION SELECT job_id FROM attempts WHERE started_at >= $1)
         ORDER BY j.id`,
        [since],
      )
      .catch(() => undefined);
    if (!read || this.closed) return;
    this.publish(
      read.rows.flatMap(({ since_start, ...job }) => {
        const started: StoreEvent[] = (since_start ?? []).map((start) => ({ job, from: 'queued', start }));
        if (job.status === 'dispatched') return started;
        const from = job.status === 'queued' ? (job.attempts > 0 ? 'dispatched' : null) : job.attempts > 0 ? 'dispatched' : 'queued';
        return [...started, { job, from }];
      }),
    );
  }
}
