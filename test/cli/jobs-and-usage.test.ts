/**
 * Retention, deleting jobs and usage from the command line while the scripted server runs.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRuns, api, withinOneSecond, expectUsageError, CALLBACK } from '../support/cli-runs.js';
import { type Running } from '../support/processes.js';

const { tempDir, cli, ok, scriptedWithKey } = cliRuns();

describe('retention, deleting jobs and usage on a running server', () => {
  let dir: string;
  let key: string;
  let server: Running;

  const submit = (body: Record<string, unknown>) => api(server.url, key, 'POST', '/v1/completions', body);
  const get = (id: string) => api(server.url, key, 'GET', `/v1/completions/${id}`);
  const adminState = async () => (await api(server.url, readFileSync(join(dir, 'admin-token'), 'utf8').trim(), 'GET', '/admin/v1/state')).body;

  beforeEach(async () => {
    dir = tempDir();
    ({ server, key } = await scriptedWithKey(dir, 'chatgpt=1,claude=1'));
  });

  it('settings retention shows the period (90 days by default), sets it, and the server has it within one second', async () => {
    expect((await ok(['settings', 'retention', '--data-dir', dir])).stdout).toMatch(/^Retention: 90 days\./);
    const set = await ok(['settings', 'retention', '--days', '7', '--data-dir', dir]);
    expect(set.stdout).toMatch(/^Retention: 7 days\. Prompts and answers of jobs that finished longer ago are removed/);
    await withinOneSecond('retention_days 7 in the dashboard state', set.endedAt, async () => (await adminState()).settings.retention_days === 7);
    const none = await ok(['settings', 'retention', '--days', 'none', '--data-dir', dir]);
    expect(none.stdout).toMatch(/^Retention: none\./);
    await withinOneSecond('retention_days null in the dashboard state', none.endedAt, async () => (await adminState()).settings.retention_days === null);
    expectUsageError(await cli(['settings', 'retention', '--days', '0', '--data-dir', dir]), /from 1 to 3650/);
  });

  it('jobs delete refuses a running job and deletes a finished one (404 after); jobs purge deletes finished jobs before a date and says how many', async () => {
    const done = [];
    for (const prompt of ['one', 'two', 'three']) done.push((await submit({ prompt, provider: 'claude' })).body.id as string);
    const running = (await submit({ prompt: '[[hang]]', provider: 'chatgpt', wait: false, callback_url: CALLBACK })).body.id as string;

    // Each job's diagnostic bundle goes with it; the running job's stays.
    const bundle = (id: string) => join(dir, 'diagnostics', `${id}-1`);
    for (const id of [...done, running]) mkdirSync(bundle(id), { recursive: true });
    expectUsageError(await cli(['jobs', 'delete', running, '--data-dir', dir]), /is (queued|dispatched): cancel it first/);
    expect((await get(running)).status).toBe(200);
    expect((await ok(['jobs', 'delete', done[0]!, '--data-dir', dir])).stdout).toBe(`Deleted ${done[0]}, with its attempts and webhook log.\n`);
    expect((await get(done[0]!)).status).toBe(404);
    expect([...done, running].map((id) => existsSync(bundle(id)))).toEqual([false, true, true, true]);
    expectUsageError(await cli(['jobs', 'delete', done[0]!, '--data-dir', dir]), /No job/);

    // Nothing finished before yesterday; everything finished before tomorrow.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    expect((await ok(['jobs', 'purge', '--before', day(-1), '--data-dir', dir])).stdout).toMatch(/^Deleted 0 finished jobs \(finished before /);
    const purged = await ok(['jobs', 'purge', '--before', day(1), '--data-dir', dir]);
    expect(purged.stdout).toMatch(/^Deleted 2 finished jobs \(finished before \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
    expect((await Promise.all(done.map(get))).map((r) => r.status)).toEqual([404, 404, 404]);
    expect((await get(running)).body.status).toBe('dispatched');
    expect([...done, running].map((id) => existsSync(bundle(id)))).toEqual([false, false, false, true]);
    expectUsageError(await cli(['jobs', 'purge', '--before', '2026-02-30', '--data-dir', dir]), /Not a date/);
    expectUsageError(await cli(['jobs', 'purge', '--data-dir', dir]), /--before/);
  });

  it('usage prints a table by provider, agent or key, and --json for scripts', async () => {
    for (const prompt of ['a', 'b']) expect((await submit({ prompt, provider: 'chatgpt' })).status).toBe(200);
    expect((await submit({ prompt: '[[fail=rejected]]', provider: 'claude' })).status).toBe(502);

    const json = JSON.parse((await ok(['usage', '--json', '--data-dir', dir])).stdout);
    expect(json).toMatchObject({ by: 'provider', totals: { jobs: 3, succeeded: 2, failed: 1, failures: { PROMPT_REJECTED: 1 } } });
    expect(json.groups.map((g: { id: string; figures: { jobs: number } }) => [g.id, g.figures.jobs])).toEqual([['chatgpt', 2], ['claude', 1]]);
    expect(json.groups[0].figures.run_ms).toEqual({ p50: expect.any(Number), p95: expect.any(Number) });

    const table = (await ok(['usage', '--since', '1h', '--data-dir', dir])).stdout.split('\n');
    expect(table[0]).toMatch(/^Jobs that finished from .* to .*, by provider:$/);
    expect(table[2]).toMatch(/^provider\s+jobs\s+ok\s+failed\s+cancel\s+expired\s+queue p50\/p95\s+run p50\/p95\s+answer p50\/p95$/);
    expect(table[3]).toMatch(/^ChatGPT\s+2\s+2\s+0\s+0\s+0\s/);
    expect(table[4]).toMatch(/^Claude\s+1\s+0\s+1\s+0\s+0\s.*\s-$/); // no answer: no answer time
    expect(table[5]).toMatch(/^total\s+3\s+2\s+1\s/);
    expect(table).toContain('Failures by code: PROMPT_REJECTED 1');
    // A job sent from the dashboard, with the admin token.
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    expect((await api(server.url, token, 'POST', '/v1/completions', { prompt: 'from the dashboard', provider: 'claude' })).status).toBe(200);
    const byKey = (await ok(['usage', '--by', 'key', '--data-dir', dir])).stdout;
    expect(byKey).toMatch(/^scripted \(key_\w+\)\s+3\s/m);
    expect(byKey).toMatch(/^admin token \(dashboard\)\s+1\s/m);
    expect((await ok(['usage', '--by', 'agent', '--data-dir', dir])).stdout).toMatch(/^chatgpt-1 \(agt_\w+\)\s+2\s/m);

    expectUsageError(await cli(['usage', '--since', '91d', '--data-dir', dir]), /90 days/);
    expectUsageError(await cli(['usage', '--by', 'model', '--data-dir', dir]), /model/);
  });
});
