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

export const randomIds: IdGenerator = {
  job: (nowMs) => `job_${timePrefix(nowMs)}${randomBase62(14)}`,
  agent: () => `agt_${randomBase62(16)}`,
  conversation: () => `cv_${randomBase62(24)}`,
  request: () => `req_${randomBase62(20)}`,
  apiKeyId: () => `key_${randomBase62(12)}`,
  account: () => `acct_${randomBase62(16)}`,
  apiKeySecret: () => `cb_${randomBase62(40)}`,
  signingSecret: () => `whsec_${randomBase62(32)}`,
  pick: (n) => randomInt(n),
};
