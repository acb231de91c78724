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
 * What the notices waiting for the next read say of one job: the statuses it moved from,
 * and the attempts they say were started.
 */
interface Named {
  from: Set<JobStatus | null>;
  attempts: Set<number>;
}

/**
 * The events a re-read job is handed on as: one for each start the notices named that the
 * attempts table shows, and one for each status they said it moved from (a dispatch moves
 * from queued; a start the table does not show is no start, and the job is handed on as
 * re-read).
 */
function eventsOf(job: JobRow, { from, attempts }: Named, starts: Map<string, AttemptStart>): StoreEvent[] {
  const events = new Map<string, StoreEvent>();
  for (const attempt of attempts) {
    const start = starts.get(`${job.id}:${attempt}`);
    if (start) events.set(`start ${attempt}`, { job, from: 'queued', start, heard: true });
    else events.set('queued', { job, from: 'queued', heard: true });
  }
  for (const status of from) events.set(String(status), { job, from: status, heard: true });
  return [...events.values()];
}

/**
 * Hears the moves other instances announce: each announced job is re-read (those waiting
 * together in one query), with the attempt a dispatch started read from the attempts table,
 * and handed on in the order first announced, as the job is now: one event per status it
 * was said to move from, and one per start the attempts table shows. Notices are hints (any
 * role that can connect may send them): a job named a thousand times while a read is under
 * way is read once more, and handed on as often as its distinct claims, not its notices.
 * Events heard here are marked `heard`: the row shows how the job is, not that this move
 * happened now, so nothing counts or logs them. Holds one connection of the pool.
 * What is announced while that connection is lost is not heard: once it listens again, the
 * jobs that moved since (queued, started, finished) are read and handed on.
 */
export class JobNotices {
  private readonly listener: ChannelListener;
  private closed = false;
  private waiting = new Map<string, Named>();
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

  private heard({ device, id, from, attempt }: Notice): void {
    if (device === this.deviceId) return;
    const named = this.waiting.get(id) ?? { from: new Set(), attempts: new Set() };
    this.waiting.set(id, named);
    if (attempt === undefined) named.from.add(from);
    else named.attempts.add(attempt);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.waiting.size > 0 && !this.closed) {
      const batch = this.waiting;
      this.waiting = new Map();
      // A read that fails (the pool closing, the database gone) loses these events, as a lost
      // listening connection would: there is nothing to report to, and nothing else is harmed.
      const read = await this.read(batch).catch(() => undefined);
      if (!read || this.closed) continue;
      const { jobs, starts } = read;
      this.publish(
        [...batch].flatMap(([id, named]) => {
          const job = jobs.get(id);
          return job ? eventsOf(job, named, starts) : [];
        }),
      );
    }
    this.draining = false;
  }

  /** The jobs the notices name, and the attempt starts they name, as our tables have them. */
  private async read(batch: Map<string, Named>): Promise<{ jobs: Map<string, JobRow>; starts: Map<string, AttemptStart> }> {
    const named = [...batch].flatMap(([id, { attempts }]) => [...attempts].map((attempt) => ({ id, attempt })));
    const [jobs, starts] = await Promise.all([
      this.pool.query<JobRow>(`SELECT * FROM jobs WHERE id = ANY($1)`, [[...batch.keys()]]),
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
        const started: StoreEvent[] = (since_start ?? []).map((start) => ({ job, from: 'queued', start, heard: true }));
        if (job.status === 'dispatched') return started;
        const from = job.status === 'queued' ? (job.attempts > 0 ? 'dispatched' : null) : job.attempts > 0 ? 'dispatched' : 'queued';
        return [...started, { job, from, heard: true }];
      }),
    );
  }
}
