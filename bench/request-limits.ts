/**
 * What a per-key request limit costs each request: MemoryRateLimiter (one instance) against
 * PgRateLimiter (one GCRA statement on the shared PostgreSQL, a throwaway cluster on this
 * machine). One key at a time, then 32 requests at once over 8 keys on a pool of 10, as a
 * busy instance's requests would be. Aim: under 1 ms a request at the median one at a time.
 *
 *   node dist/bench/request-limits.js [requests]
 */
import { MemoryRateLimiter, type RateLimiter } from '../main/keys/rate-limit.js';
import { PgRateLimiter } from '../main/storage/postgres/rate-limit.js';
import { systemClock } from '../main/core/clock.js';
import { connect } from '../main/storage/postgres/connect.js';
import { migrate } from '../main/storage/postgres/schema.js';
import { postgresInstalled, startPostgres } from '../test/support/postgres.js';
import { ascending, heading, inPool, percentile, printMachineLoad, printTable, runMain, verdict } from './support.js';

const AIM_MEDIAN_MS = 1;
const CONCURRENCY = 32;
/** High enough that no request is refused: a refusal costs the same statement. */
const PER_MINUTE = 100_000_000;

async function main(): Promise<void> {
  heading('per-key request limits: in memory against PostgreSQL');
  if (!postgresInstalled()) {
    console.log('  skipped: PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql)');
    return;
  }
  await printMachineLoad();
  const requests = Number(process.argv[2] ?? 5_000);
  const cluster = await startPostgres();
  try {
    const pool = await connect(await cluster.createDatabase());
    await migrate(pool);
    const rows = [
      ['limiter', 'one at a time: median', 'p99', `${CONCURRENCY} at once: per request`, 'aim (median)', ''],
      await measure('in memory', new MemoryRateLimiter(systemClock, PER_MINUTE), requests),
      await measure('PostgreSQL', new PgRateLimiter(pool, systemClock, 'write', PER_MINUTE), requests),
    ];
    await pool.end();
    console.log(`\n  ${requests} requests each way, over 8 keys`);
    printTable(rows);
  } finally {
    cluster.stop();
  }
}

async function measure(name: string, limiter: RateLimiter, requests: number): Promise<string[]> {
  const key = (i: number) => `key_${i % 8}`;
  // Warm-up: connections opened, rows made, the statement planned.
  await inPool(Array.from({ length: 200 }, (_, i) => i), CONCURRENCY, (i) => limiter.take(key(i)));
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const begin = performance.now();
    await limiter.take(key(i));
    times.push(performance.now() - begin);
  }
  const sorted = ascending(times);
  const begin = performance.now();
  await inPool(Array.from({ length: requests }, (_, i) => i), CONCURRENCY, (i) => limiter.take(key(i)));
  const perRequest = (performance.now() - begin) / requests;
  const median = percentile(sorted, 50);
  return [name, us(median), us(percentile(sorted, 99)), us(perRequest), `< ${AIM_MEDIAN_MS} ms`, verdict(median < AIM_MEDIAN_MS)];
}

const us = (ms: number) => `${Math.round(ms * 1000)} µs`;

runMain(main);
