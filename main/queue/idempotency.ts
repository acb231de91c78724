import { createHash } from 'node:crypto';

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
