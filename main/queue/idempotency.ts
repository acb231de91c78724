import { createHash } from 'node:crypto';
import type { Db } from './db.js';

/** decisions.md: keys are kept 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** JSON with object keys sorted at every level, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What an Idempotency-Key stands for: the path plus the canonical body without `wait`
 * (how to deliver the answer is not part of what to do).
 */
export function requestHash(path: string, body: Record<string, unknown>): string {
  const { wait: _wait, ...what } = body;
  return createHash('sha256').update(path).update('\n').update(canonicalJson(what)).digest('hex');
}

export class IdempotencyStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare(`SELECT request_hash, job_id FROM idempotency WHERE key = ? AND created_at > ?`),
      put: db.prepare(
        `INSERT INTO idempotency (key, request_hash, job_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, job_id = excluded.job_id,
           created_at = excluded.created_at`,
      ),
      prune: db.prepare(`DELETE FROM idempotency WHERE created_at <= ?`),
    };
  }

  /** The entry for `key` made within the last `ttlMs`, if any. */
  find(key: string, now: number, ttlMs = IDEMPOTENCY_TTL_MS): { request_hash: string; job_id: string } | undefined {
    return this.s.get.get(key, now - ttlMs) as { request_hash: string; job_id: string } | undefined;
  }

  /** Records `key` (replacing an earlier entry). */
  remember(key: string, hash: string, jobId: string, now: number): void {
    this.s.put.run(key, hash, jobId, now);
  }

  prune(now: number): void {
    this.s.prune.run(now - IDEMPOTENCY_TTL_MS);
  }
}
