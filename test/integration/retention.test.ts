/**
 * Retention, deletion and usage history through the real service and HTTP API, with time
 * injected: content pruned on the clock's schedule (and at once when the setting changes),
 * deleting refused while a job is live and 404 after, usage figures per key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SweepResult } from '../../main/service/retention.js';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { DAY_MS } from '../../main/core/timestamps.js';

let t: TestService;
let admin: string;
let clock: ManualClock;
afterEach(async () => t?.stop());

async function start(agents: { chatgpt?: number } = { chatgpt: 1 }) {
  clock = new ManualClock();
  const sweptAtStart = new Promise<void>((resolve) => setImmediate(resolve));
  t = await startTestService({ listen: false, agents, clock });
  await sweptAtStart;
  admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
}

const as = (method: string, path: string, body?: unknown) => t.api(method, path, { key: admin, body });

/** The result of the next sweep to end. */
const nextSweep = () =>
  new Promise<SweepResult>((resolve) => {
    const stop = t.service.retention.onSweep((result) => {
      stop();
      resolve(result);
    });
  });

/** Moves the clock on; resolves with the sweep its timer started on the way. */
async function advance(ms: number): Promise<SweepResult> {
  const swept = nextSweep();
  clock.advance(ms);
  return swept;
}

describe('retention', () => {
  it('removes prompt and response once the period has passed, on the clock; timings, usage and the conversation stay', async () => {
    await start();
    expect((await as('GET', '/admin/v1/state')).body.settings.retention_days).toBe(90);
    const changed = nextSweep();
    expect((await as('PATCH', '/admin/v1/settings', { retention_days: 2 })).body.settings.retention_days).toBe(2);
    await changed;

    const a = (await t.api('POST', '/v1/completions', { body: { prompt: 'first' } })).body;
    expect(a.response).toMatch(/first$/);
    await advance(DAY_MS);
    const b = (await t.api('POST', '/v1/completions', { body: { prompt: 'second' } })).body;

    expect((await advance(DAY_MS)).pruned).toBe(0); // its timer fired 10 minutes in
    expect(await advance(10 * 60_000)).toMatchObject({ pruned: 1 }); // now 2 days and 10 minutes after `a`

    const pruned = await t.api('GET', `/v1/completions/${a.id}`);
    expect(pruned.status).toBe(200);
    const { response: _r, ...kept } = a;
    expect(pruned.body).toEqual({ ...kept, response: null });
    expect(pruned.body).not.toHaveProperty('content_pruned_at'); // Profile F does not show it
    const detail = (await as('GET', `/admin/v1/jobs/${a.id}`)).body;
    expect(detail).toMatchObject({ prompt: '', content_pruned_at: expect.stringMatching(/^\d{4}-.*Z$/) });
    expect(detail.attempts).toHaveLength(1);
    expect((await t.api('GET', `/v1/completions/${b.id}`)).body.response).toMatch(/second$/);

    const continued = await t.api('POST', '/v1/completions', { body: { prompt: 'and then?', mode: 'continue', conversation_ref: a.conversation_ref } });
    expect(continued.status).toBe(200);
    expect(continued.body.conversation_ref).toBe(a.conversation_ref);
    expect((await as('GET', '/admin/v1/usage?range=7d')).body.totals).toMatchObject({ jobs: 3, succeeded: 3 });

    // A shorter period applies at once, without waiting for the timer.
    const shorter = nextSweep();
    await as('PATCH', '/admin/v1/settings', { retention_days: 1 });
    expect(await shorter).toMatchObject({ pruned: 1 });
    expect((await t.api('GET', `/v1/completions/${b.id}`)).body.response).toBeNull();
  });

  it('keeps everything with retention none; refuses a period out of range', async () => {
    await start();
    expect((await as('PATCH', '/admin/v1/settings', { retention_days: 0 })).body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'retention_days' } });
    expect((await as('PATCH', '/admin/v1/settings', { retention_days: 3_651 })).status).toBe(400);
    await as('PATCH', '/admin/v1/settings', { retention_days: null });
    const a = (await t.api('POST', '/v1/completions', { body: { prompt: 'keep me' } })).body;
    await advance(400 * DAY_MS);
    expect(await advance(10 * 60_000)).toMatchObject({ pruned: 0 });
    expect((await t.api('GET', `/v1/completions/${a.id}`)).body.response).toMatch(/keep me$/);
  });
});

describe('deleting a job', () => {
  it('is refused with 409 while queued or running; after a cancel it deletes, and GET answers 404', async () => {
    await start();
    const running = (await t.api('POST', '/v1/completions', { body: { prompt: '[[hang]]', wait: false, callback_url: 'https://127.0.0.1:9/hook' } })).body;
    const queued = (await t.api('POST', '/v1/completions', { body: { prompt: 'behind', wait: false, callback_url: 'https://127.0.0.1:9/hook' } })).body;
    await until(async () => (await t.driver.job(running.id))!.status === 'dispatched');
    const waiting = t.api('GET', `/v1/completions/${running.id}?wait=true`);

    for (const [job, status] of [[running, 'dispatched'], [queued, 'queued']] as const) {
      const refused = await as('DELETE', `/admin/v1/jobs/${job.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { status }, request_id: expect.any(String) });
      expect(refused.body.error.message).toMatch(/cancel it first/);
    }
    expect((await t.driver.job(running.id))!.status).toBe('dispatched');
    expect((await t.api('DELETE', `/admin/v1/jobs/${queued.id}`)).status).toBe(403); // an API key is not the admin token

    // The caller waiting on the running job is answered by the cancel, never left hanging.
    expect((await t.api('DELETE', `/v1/completions/${running.id}`)).body.status).toBe('cancelled');
    expect((await waiting).body).toMatchObject({ id: running.id, status: 'cancelled' });
    await until(() => t.driver.delivery(running.id));
    expect((await as('DELETE', `/admin/v1/jobs/${running.id}`)).status).toBe(204);

    const gone = await t.api('GET', `/v1/completions/${running.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');
    expect((await as('GET', `/admin/v1/jobs/${running.id}`)).status).toBe(404);
    expect((await as('DELETE', `/admin/v1/jobs/${running.id}`)).status).toBe(404);
    expect(await t.driver.attempts(running.id)).toEqual([]);
    expect(await t.driver.delivery(running.id)).toBeUndefined();
    expect((await as('GET', '/admin/v1/jobs')).body.jobs.map((j: { id: string }) => j.id)).not.toContain(running.id);

    // The queued job ran meanwhile; finished, it can go too.
    await until(async () => (await t.driver.job(queued.id))!.status === 'succeeded');
    expect((await as('DELETE', `/admin/v1/jobs/${queued.id}`)).status).toBe(204);
  });
});

describe('usage history', () => {
  it('records which key sent each job and filters by key and agent', async () => {
    await start({ chatgpt: 2 });
    const other = await t.createKey(['completions:write']);
    const theirs = t.driver.keys.list().find((k) => k.scopes.length === 1);
    const mine = t.driver.keys.list().find((k) => k.id !== theirs!.id);
    await t.api('POST', '/v1/completions', { body: { prompt: 'one' } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'two' } });
    const fromOther = (await t.api('POST', '/v1/completions', { body: { prompt: 'three' }, key: other })).body;
    const fromAdmin = (await as('POST', '/v1/completions', { prompt: 'four' })).body;
    expect((await t.driver.job(fromOther.id))!.api_key_id).toBe(theirs!.id);
    expect((await t.driver.job(fromAdmin.id))!.api_key_id).toBe('admin');

    const all = (await as('GET', '/admin/v1/usage')).body;
    expect(all.bucket_ms).toBe(3_600_000);
    expect(all.series).toHaveLength(24);
    expect(all.series.at(-1).figures.jobs).toBe(4);
    expect(all.groups.key.map((g: { id: string; name: string; figures: { jobs: number } }) => [g.id, g.name, g.figures.jobs])).toEqual([
      [mine!.id, 'test', 2],
      ['admin', 'admin token (dashboard)', 1], // ties in id order
      [theirs!.id, 'test', 1],
    ]);
    expect((await as('GET', `/admin/v1/usage?key=${theirs!.id}`)).body.totals.jobs).toBe(1);
    const agent = fromOther.agent_id as string;
    const byAgent = (await as('GET', `/admin/v1/usage?agent=${agent}&range=90d&tz_offset=-300`)).body;
    expect(byAgent.bucket_ms).toBe(DAY_MS);
    expect(byAgent.series).toHaveLength(90);
    expect(byAgent.groups.agent.map((g: { id: string }) => g.id)).toEqual([agent]);

    expect((await as('GET', '/admin/v1/usage?range=1y')).body.error.details.field).toBe('range');
    expect((await as('GET', '/admin/v1/usage?tz_offset=900')).body.error.details.field).toBe('tz_offset');
    expect((await t.api('GET', '/admin/v1/usage')).status).toBe(403);
  });
});
