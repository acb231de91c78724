import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Random bytes drawn from the OS CSPRNG a few kilobytes at a time: one syscall per
 * hundreds of ids instead of one per id (request ids are made for every request).
 */
let pool = Buffer.alloc(0);
let poolAt = 0;
function randomByte(): number {
  if (poolAt >= pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Uniform base62 string (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * Id generator, injected so tests can make ids predictable. Job ids start with the
 * creation time in Crockford base32 so that "older first, then lower id" agree.
 */
export interface IdGenerator {
  job(nowMs: number): string;
  agent(): string;
  conversation(): string;
  request(): string;
  apiKeyId(): string;
  account(): string;
  apiKeySecret(): string;
  signingSecret(): string;
  /** A number in [0, n), for the `random` rotation strategy. */
  pick(n: number): number;
}

function timePrefix(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD32[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** The last job id's time and random part: ids made in one millisecond follow each other. */
let lastJob = { ms: -1, rest: '' };

/** `rest` + 1 in base62 (null past the last one: all `z`). */
function nextBase62(rest: string): string | null {
  const digits = rest.split('');
  for (let i = digits.length - 1; i >= 0; i--) {
    const at = BASE62.indexOf(digits[i]!);
    if (at < 61) {
      digits[i] = BASE62[at + 1]!;
      return digits.join('');
    }
    digits[i] = '0';
  }
  return null;
}

/**
 * A job id: its time, then a random part. Jobs made in the same millisecond by this process
 * (a script's burst, one account's queue) take the last one's random part plus one, so that
 * "older first, then lower id" is the order they were made in, not a coin toss.
 */
function jobId(nowMs: number): string {
  const rest = (nowMs === lastJob.ms && nextBase62(lastJob.rest)) || randomBase62(14);
  lastJob = { ms: nowMs, rest };
  return `job_${timePrefix(nowMs)}${rest}`;
}

export const randomIds: IdGenerator = {
  job: jobId,
  agent: () => `agt_${randomBase62(16)}`,
  conversation: () => `cv_${randomBase62(24)}`,
  request: () => `req_${randomBase62(20)}`,
  apiKeyId: () => `key_${randomBase62(12)}`,
  account: () => `acct_${randomBase62(16)}`,
  apiKeySecret: () => `cb_${randomBase62(40)}`,
  signingSecret: () => `whsec_${randomBase62(32)}`,
  pick: (n) => randomInt(n),
};
