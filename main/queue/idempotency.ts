import { createHash } from 'node:crypto';
import type { IdempotencyClaim } from '../core/jobs.js';

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

/** An idempotency entry as a store keeps it. */
export interface KeyEntry {
  request_hash: string;
  job_id: string;
  created_at: number;
}

export type KeyVerdict = { kind: 'new' } | { kind: 'conflict' } | { kind: 'repeat'; jobId: string };

/**
 * What the entry of a submission's key means, both stores alike: `repeat`, the request was
 * made before (its job is the answer, if it still exists); `conflict`, the key was used for
 * another request (refused); `new`, make the job, and the key stands for it from now on
 * (no entry, one older than the claim's window, or another request's under an implicit key).
 */
export function keyVerdict(entry: KeyEntry | undefined, claim: IdempotencyClaim, now: number): KeyVerdict {
  if (!entry || entry.created_at <= now - claim.ttlMs) return { kind: 'new' };
  if (entry.request_hash === claim.hash) return { kind: 'repeat', jobId: entry.job_id };
  return claim.onOtherHash === 'conflict' ? { kind: 'conflict' } : { kind: 'new' };
}
