import { HOUR_MS } from './hourly-usage.js';
import type { JobStatus } from '../core/jobs.js';

/** How far back usage history reaches. */
export const USAGE_DAYS = 90;
/**
 * The range is read a slice at a time, with a turn of the event loop between slices, so a
 * 90-day report over 100 000 jobs never holds the API up for more than a few milliseconds.
 */
const SLICE_MS = 3 * 86_400_000;
/**
 * Samples sorted between two turns of the event loop: a few milliseconds' work. The
 * percentiles at the end sort every tally's samples (each job is in five tallies), which in
 * one go held the loop for 200-300 ms on a 90-day report of 100 000 jobs.
 */
const TURN_SHARE = 20_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts work done on the event loop and lets other callbacks run each time a share is used up. */
class Turns {
  private done = 0;

  constructor(private readonly share: number) {}

  async after(work: number): Promise<void> {
    this.done += work;
    if (this.done < this.share) return;
    this.done = 0;
    await nextTurn();
  }
}

export const USAGE_GROUPS = ['provider', 'agent', 'key'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageQuery {
  /** Jobs that finished in [since, until), epoch ms. */
  since: number;
  until: number;
  /** Only jobs submitted with this API key ('admin': the dashboard's token). */
  keyId?: string;
  /** Only jobs whose last attempt ran on this agent. */
  agentId?: string;
}

/** Nearest-rank percentiles, in ms. */
export interface Percentiles {
  p50: number;
  p95: number;
}

export interface UsageFigures {
  jobs: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  expired: number;
  /** Failed and expired jobs by error code. */
  failures: Record<string, number>;
  /** Wait before the first dispatch, over jobs that were dispatched; null when none was. */
  queue_ms: Percentiles | null;
  /** Time spent running, over jobs that ran. */
  run_ms: Percentiles | null;
  /** From acceptance to the answer, over jobs that succeeded. */
  answer_ms: Percentiles | null;
}

export interface UsageBucket {
  /** Epoch ms of the bucket's start. */
  start: number;
  figures: UsageFigures;
  /** Jobs per provider ('none' for a job that named none and never reached an agent). */
  providers: Record<string, number>;
}

export interface UsageGroupRow {
  /**
   * The provider (the one that ran the job, else the one it asked for), agent id or key id;
   * null when unknown (never dispatched, or sent before keys were recorded).
   */
  id: string | null;
  figures: UsageFigures;
}

export interface UsageHistoryReport {
  totals: UsageFigures;
  /** Every bucket of the range in order, empty ones included. */
  series: UsageBucket[];
  groups: Record<UsageGroup, UsageGroupRow[]>;
}

/**
 * Usage history, computed from the job rows themselves: a restart loses nothing, and
 * pruning content changes nothing (only prompt and response go). Jobs count in the bucket
 * of the time they finished; live jobs are not counted yet. The data dir's SQLite
 * (storage/sqlite/usage-history.ts) and the shared PostgreSQL (storage/postgres/usage-history.ts) read the
 * rows; `reportFrom` turns them into the same figures.
 */
export interface UsageHistory {
  /**
   * Totals, a series of buckets of `bucketMs` (aligned to `offsetMs` past the epoch's
   * multiples, so days can start at local midnight), and the figures per provider, agent and key.
   */
  report(q: UsageQuery, bucketMs?: number, offsetMs?: number): Promise<UsageHistoryReport>;
}

/** One finished job as a report counts it, in this column order (SQLite's covering index `jobs_finished`). */
export type UsageRow = [
  finished_at: number,
  /** The provider that ran it, else the one it asked for. */
  provider: string | null,
  agent_id: string | null,
  api_key_id: string | null,
  status: JobStatus,
  error_code: string | null,
  created_at: number,
  queue_ms: number | null,
  run_ms: number,
  attempts: number,
];

/** Figures in the making: counts, and the samples the percentiles are taken from. */
class Tally {
  jobs = 0;
  readonly status = { succeeded: 0, failed: 0, cancelled: 0, expired: 0 };
  readonly failures: Record<string, number> = {};
  readonly queue: number[] = [];
  readonly run: number[] = [];
  readonly answer: number[] = [];

  add(r: UsageRow): void {
    const [finishedAt, , , , status, errorCode, createdAt, queueMs, runMs, attempts] = r;
    this.jobs++;
    if (status in this.status) this.status[status as keyof Tally['status']]++;
    if ((status === 'failed' || status === 'expired') && errorCode) this.failures[errorCode] = (this.failures[errorCode] ?? 0) + 1;
    if (queueMs !== null) this.queue.push(queueMs);
    if (attempts > 0) this.run.push(runMs);
    if (status === 'succeeded') this.answer.push(finishedAt - createdAt);
  }

  /** Sorting is the costly part: `turns` hears of each sort, so a big tally is not done in one go. */
  async figures(turns: Turns): Promise<UsageFigures> {
    const of = async (samples: number[]) => {
      const result = percentiles(samples);
      await turns.after(samples.length);
      return result;
    };
    return {
      jobs: this.jobs,
      ...this.status,
      failures: this.failures,
      queue_ms: await of(this.queue),
      run_ms: await of(this.run),
      answer_ms: await of(this.answer),
    };
  }
}

export function percentiles(samples: number[]): Percentiles | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return { p50: rank(0.5), p95: rank(0.95) };
}

/**
 * A UsageHistory report from the rows `read` gives, slice by slice (a few days each, with a
 * turn of the event loop between), then counting and percentiles in memory.
 */
export async function reportFrom(read: (slice: UsageQuery) => Promise<UsageRow[]>, q: UsageQuery, bucketMs = HOUR_MS, offsetMs = 0): Promise<UsageHistoryReport> {
  const first = Math.floor((q.since - offsetMs) / bucketMs) * bucketMs + offsetMs;
  const buckets = Array.from({ length: Math.max(0, Math.ceil((q.until - first) / bucketMs)) }, () => ({
    tally: new Tally(),
    providers: {} as Record<string, number>,
  }));
  const totals = new Tally();
  const groups = { provider: new Map<string | null, Tally>(), agent: new Map<string | null, Tally>(), key: new Map<string | null, Tally>() };
  const into = (map: Map<string | null, Tally>, id: string | null) => {
    let tally = map.get(id);
    if (!tally) map.set(id, (tally = new Tally()));
    return tally;
  };

  const turns = new Turns(TURN_SHARE);
  for (let since = q.since; since < q.until; since += SLICE_MS) {
    if (since > q.since) await nextTurn();
    const slice = { since, until: Math.min(since + SLICE_MS, q.until), keyId: q.keyId, agentId: q.agentId };
    for (const r of await read(slice)) {
      const bucket = buckets[Math.floor((r[0] - first) / bucketMs)]!;
      bucket.tally.add(r);
      const provider = r[1] ?? 'none';
      bucket.providers[provider] = (bucket.providers[provider] ?? 0) + 1;
      totals.add(r);
      into(groups.provider, r[1]).add(r);
      into(groups.agent, r[2]).add(r);
      into(groups.key, r[3]).add(r);
    }
  }

  const rowsOf = async (map: Map<string | null, Tally>): Promise<UsageGroupRow[]> => {
    const rows: UsageGroupRow[] = [];
    for (const [id, tally] of map) rows.push({ id, figures: await tally.figures(turns) });
    // Most jobs first; ties in id order, unknown last, so the order is the same on every call.
    return rows.sort((a, b) => b.figures.jobs - a.figures.jobs || (a.id ?? '\uffff').localeCompare(b.id ?? '\uffff'));
  };
  const series: UsageBucket[] = [];
  for (const [i, b] of buckets.entries()) series.push({ start: first + i * bucketMs, figures: await b.tally.figures(turns), providers: b.providers });
  return {
    totals: await totals.figures(turns),
    series,
    groups: { provider: await rowsOf(groups.provider), agent: await rowsOf(groups.agent), key: await rowsOf(groups.key) },
  };
}
