import { ApiError } from '../core/errors.js';

/** How long a caller refused for holding too many requests open is asked to wait. */
const RETRY_AFTER_S = 10;

/** Who holds a request open: its key, the key's account (hosted), and the client's address. */
export interface Holder {
  keyId: string;
  accountId: string | null;
  /** The client's address (behind a proxy on this machine, the one its X-Forwarded-For names). */
  ip: string;
}

/**
 * Counts the requests held open for a job's end (`wait: true`, `?wait=true`, chat
 * completions) per key, per account (hosted) and per client address, so that no one tenant,
 * nor one client with the keys of several, can fill the server's connections with long
 * polls: past a cap a new hold is refused with 429 and Retry-After before anything is
 * submitted. Counts are this instance's own.
 */
export class HoldLimits {
  private readonly held = new Map<string, number>();

  constructor(
    private readonly perKey: number,
    private readonly perAccount: number,
    private readonly perAddress: number,
  ) {}

  /** Runs `hold` as one hold of `holder`, or throws RATE_LIMITED before it starts. */
  async during<T>({ keyId, accountId, ip }: Holder, hold: () => Promise<T>): Promise<T> {
    const buckets: [string, number, string][] = [
      [`key:${keyId}`, this.perKey, 'This key'],
      [`address:${ip}`, this.perAddress, 'This client address'],
    ];
    if (accountId !== null) buckets.push([`account:${accountId}`, this.perAccount, "This key's account"]);
    for (const [bucket, cap, whose] of buckets) {
      if ((this.held.get(bucket) ?? 0) >= cap) {
        throw new ApiError(
          'RATE_LIMITED',
          `${whose} already holds ${cap} requests open waiting for jobs to end; wait for one to end, or submit with wait: false and poll or take a callback_url.`,
          { limit: cap },
          { 'retry-after': String(RETRY_AFTER_S) },
        );
      }
    }
    for (const [bucket] of buckets) this.held.set(bucket, (this.held.get(bucket) ?? 0) + 1);
    try {
      return await hold();
    } finally {
      for (const [bucket] of buckets) {
        const n = this.held.get(bucket)! - 1;
        if (n === 0) this.held.delete(bucket);
        else this.held.set(bucket, n);
      }
    }
  }
}
