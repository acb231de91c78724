/**
 * `usage` and `jobs` with --database: the built CLI (needs dist/) reads and deletes the jobs
 * every instance shares in PostgreSQL, and never opens a data dir.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRow } from '../../main/core/jobs.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { runCommand } from '../support/processes.js';
import { newJob } from '../support/new-job.js';
import { submit } from '../support/store.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

let postgres: MigratedCluster;
let url: string;
let admin: pg.Pool;
let store: PgJobStore;
/** Where a command would make a data dir if it fell back to one: it must stay empty. */
let home: string;

beforeAll(async () => {
  postgres = await startMigratedCluster();
  url = await postgres.newDatabase();
  admin = await connect(url, { max: 2 });
  store = new PgJobStore(await connect(url), 'dev_a');
  home = mkdtempSync(join(tmpdir(), 'chatbridge-pg-cli-home-'));
});
afterAll(async () => {
  await store?.close();
  await admin?.end();
  await postgres?.cluster.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const chatbridge = (args: string[], env: Record<string, string> = {}) => runCommand(args, home, env);

/** A job run to its end on `agent` a few minutes ago (real time: the CLI reads the system clock). */
async function finished(agent: string, provider: string, ok: boolean, minutesAgo: number, apiKey = 'key_1'): Promise<JobRow> {
  const at = Date.now() - minutesAgo * 60_000;
  const job = await submit(store, newJob({ created_at: at, api_key_id: apiKey }));
  await store.dispatch([{ jobId: job.id, agentId: agent, provider }], at + 100);
  await store.endAttempt(
    job.id,
    1,
    ok ? { outcome: 'succeeded', response: 'r', conversationRef: `cv_${job.id}`, conversationAddress: 'https://chat/c' } : { outcome: 'failed', errorCode: 'PROMPT_REJECTED' },
    at + 2_100,
  );
  return (await store.get(job.id))!;
}

describe('usage and jobs on the shared database', () => {
  let old: JobRow;
  let queued: JobRow;

  beforeAll(async () => {
    // Another device published its agent: usage names it.
    await admin.query(
      `INSERT INTO device_agents (id, device_id, provider, name, enabled, position, created_at, state, ready)
       VALUES ('agt_1', 'dev_a', 'chatgpt', 'work laptop gpt', true, 0, 0, 'idle', true)`,
    );
    await finished('agt_1', 'chatgpt', true, 30);
    await finished('agt_1', 'chatgpt', true, 20, 'key_2');
    await finished('agt_2', 'claude', false, 10);
    old = await finished('agt_2', 'claude', true, 3 * 24 * 60);
    queued = await submit(store, newJob({ created_at: Date.now() }));
  });

  it('usage reports the shared jobs, by provider, by agent with the names devices published, also through CHATBRIDGE_DATABASE_URL', async () => {
    const json = await chatbridge(['usage', '--json', '--since', '1d', '--database', url]);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(json.stdout);
    expect(report.totals).toMatchObject({ jobs: 3, succeeded: 2, failed: 1, run_ms: { p50: 2_000, p95: 2_000 } });
    expect(report.groups.map((g: { id: string; figures: { jobs: number } }) => [g.id, g.figures.jobs])).toEqual([
      ['chatgpt', 2],
      ['claude', 1],
    ]);
    const byAgent = await chatbridge(['usage', '--by', 'agent', '--since', '7d'], { CHATBRIDGE_DATABASE_URL: url });
    expect(byAgent).toMatchObject({ code: 0, stderr: '' });
    expect(byAgent.stdout).toMatch(/^work laptop gpt \(agt_1\)\s+2\s/m);
    expect(byAgent.stdout).toMatch(/^agt_2 \(removed\) \(agt_2\)\s+2\s/m);
    expect(byAgent.stdout).toMatch(/^total\s+4\s/m);
    expect((await chatbridge(['usage', '--by', 'key', '--since', '1d', '--database', url])).stdout).toMatch(/^key_2\s+1\s/m);
    // A key of the shared database is named as it was created.
    await admin.query(`INSERT INTO api_keys (id, name, hash, hint, scopes, created_at) VALUES ('key_2', 'nightly', 'h', 'cb_xxxx…', '', 0)`);
    expect((await chatbridge(['usage', '--by', 'key', '--since', '1d', '--database', url])).stdout).toMatch(/^nightly \(key_2\)\s+1\s/m);
  });

  it('jobs delete removes a finished shared job and refuses a queued one; jobs purge removes those finished before a date', async () => {
    const recent = await finished('agt_1', 'chatgpt', true, 5);
    expect(await chatbridge(['jobs', 'delete', recent.id, '--database', url])).toEqual({
      code: 0,
      stdout: `Deleted ${recent.id}, with its attempts and webhook log.\n`,
      stderr: '',
    });
    expect(await store.get(recent.id)).toBeUndefined();
    expect(await store.attempts(recent.id)).toEqual([]);
    expect(await chatbridge(['jobs', 'delete', queued.id, '--database', url])).toMatchObject({ code: 2, stderr: expect.stringMatching(/is queued: cancel it first/) });
    expect(await chatbridge(['jobs', 'delete', 'job_none', '--database', url])).toMatchObject({ code: 2, stderr: 'chatbridge: No job job_none.\n' });

    const yesterday = new Date(Date.now() - 24 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const purged = await chatbridge(['jobs', 'purge', '--before', yesterday, '--database', url]);
    expect(purged).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Deleted 1 finished job \(finished before/), stderr: '' });
    expect(await store.get(old.id)).toBeUndefined();
    expect((await admin.query(`SELECT COUNT(*)::int AS n FROM jobs`)).rows[0].n).toBe(4);
  });

  it('left the fallback data home empty', () => {
    expect(readdirSync(home)).toEqual([]);
  });
});
