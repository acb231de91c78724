/**
 * A job that cannot start keeps waiting (the contract), and says why: in the 504 at the end
 * of a hold, the dashboard's job view and the log. Errors tell the openai SDKs (which
 * repeat every 5xx on their own) whether a repeat can help: `x-should-retry`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../main/core/providers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { CLI as CLI_NAME } from '../../main/core/cli-name.js';

let t: TestService;
let clock: ManualClock;
afterEach(async () => t?.stop());

async function start(agents: Partial<Record<Provider, number>>) {
  clock = new ManualClock();
  t = await startTestService({ listen: false, agents, clock });
  return t;
}

const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };
const waitingBecause = async (id: string) => (await t.service.admin.jobs.detail(id)).waiting_because;
const warnings = () => t.service.log.recent(undefined, { minLevel: 'warn' }).map((e) => e.message);

describe('why a job waits', () => {
  it('no account for its provider: the 504 at the end of the hold, the job view and the log say so', async () => {
    await start({ claude: 1 });
    const pending = t.api('POST', '/v1/chat/completions', { body: { model: 'service/chatgpt', messages: [{ role: 'user', content: 'hi' }] } });
    await until(() => t.driver.waiting() === 1);
    const [job] = await t.driver.recent(1);
    expect(await waitingBecause(job!.id)).toBe(`no ChatGPT account is paired (add one in the dashboard or with ${CLI_NAME} agents add chatgpt)`);
    expect(warnings()).toEqual([`Job ${job!.id} waits: no ChatGPT account is paired (add one in the dashboard or with ${CLI_NAME} agents add chatgpt)`]);

    // A burst of jobs waiting for the same reason is one line, not one per job.
    await t.api('POST', '/v1/completions', { body: { prompt: 'again', provider: 'chatgpt', ...queued } });
    expect(warnings()).toHaveLength(1);

    clock.advance(600_000);
    const r = await pending;
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe('JOB_TIMEOUT');
    expect(r.body.error.message).toContain('no ChatGPT account is paired');
    // The job lives on: a repeat (with its Idempotency-Key, or an SDK's own) waits for it.
    expect(r.headers.get('x-should-retry')).toBe('true');

  });

  it('an expired job that never started says why; its 504 says not to retry', async () => {
    await start({ qwen: 1 });
    t.driver.agents.setEnabled(t.agents[0]!.id, false);
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', deadline_ms: 10_000, timeout_ms: 5_000 } });
    await until(() => t.driver.waiting() === 1);
    clock.advance(10_000);
    const r = await pending;
    expect(r.status).toBe(504);
    expect(r.body.error.details.status).toBe('expired');
    expect(r.body.error.message).toMatch(/It never started: every Qwen agent is paused/);
    expect(r.headers.get('x-should-retry')).toBe('false');
  });

  it('a resting agent is not idle anywhere, and a job for it says until when it waits', async () => {
    await start({ gemini: 1, claude: 1 });
    const gemini = t.agents.find((a) => a.provider === 'gemini')!;
    t.driver.agents.coolDown(gemini.id, clock.now() + 10 * 60_000);
    const status = (await t.api('GET', '/v1/status')).body;
    expect(status.providers.gemini.agents_idle).toBe(0);
    expect(status.agents.idle).toBe(1);
    expect(status.devices[0].agents.find((a: { id: string }) => a.id === gemini.id)).toMatchObject({ state: 'resting' });
    expect((await t.service.admin.state.read()).agents.find((a) => a.id === gemini.id)!.state).toBe('resting');

    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'gemini', ...queued } });
    expect(await waitingBecause(sub.body.id)).toMatch(/^every Gemini agent is resting after the provider's usage limit, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Not a wait a person must end: nothing logged.
    expect(warnings()).toEqual([]);
    // wait: false without callback_url: no agent free right now is a 503 the SDKs may repeat.
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'gemini', wait: false } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('x-should-retry')).toBe('true');
    clock.advance(10 * 60_000);
    expect((await t.driver.ended(sub.body.id)).status).toBe('succeeded');
  });
});

describe('a wait: true hold that cannot end in an answer', () => {
  it('ends at once with the reason when every agent for the job rests past the hold\'s end; the job object says why and until when', async () => {
    await start({ gemini: 1, chatgpt: 1 });
    const gemini = t.agents.find((a) => a.provider === 'gemini')!;
    const restsUntil = clock.now() + 20 * 60_000;
    t.driver.agents.coolDown(gemini.id, restsUntil);
    // Another provider's job queued first is not ahead of it.
    t.driver.agents.setEnabled(t.agents.find((a) => a.provider === 'chatgpt')!.id, false);
    const other = await t.api('POST', '/v1/completions', { body: { prompt: 'other', provider: 'chatgpt', ...queued } });
    expect(other.status).toBe(202);

    // No clock advance: the hold (10 min) ends long before the rest (20 min) does.
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'gemini' } });
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe('JOB_TIMEOUT');
    const until = new Date(Math.floor(restsUntil / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    expect(r.body.error.message).toContain(`every Gemini agent is resting after the provider's usage limit, until ${until}`);
    const job = (await t.api('GET', `/v1/completions/${r.body.error.details.job_id}`)).body;
    expect(job).toMatchObject({
      status: 'queued',
      queue_position: 1,
      waiting_because: "every Gemini agent is resting after the provider's usage limit",
      waiting_until: until,
    });
    // The same through the OpenAI route.
    const chat = await t.api('POST', '/v1/chat/completions', { body: { model: 'service/gemini', messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(504);
    expect(chat.body.error.message).toContain('every Gemini agent is resting');
    // Waiting for a person (the disabled agent) is no known end: that hold holds.
    expect((await t.api('GET', `/v1/completions/${other.body.id}`)).body).toMatchObject({ waiting_because: 'every ChatGPT agent is paused (enable it on the Agents page)' });
    expect((await t.api('GET', `/v1/completions/${other.body.id}`)).body.waiting_until).toBeUndefined();
  });

  it('holds while the rest ends before the hold does, and answers after it', async () => {
    await start({ gemini: 1 });
    t.driver.agents.coolDown(t.agents[0]!.id, clock.now() + 5 * 60_000);
    let settled = false;
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'gemini' } }).finally(() => (settled = true));
    // The hold decides at once whether to end early: its listener is there, so it did not.
    await until(() => t.driver.waiting() === 1);
    // Up to the last millisecond of the rest, the caller is still held.
    clock.advance(5 * 60_000 - 1);
    expect(t.driver.waiting()).toBe(1);
    expect(settled).toBe(false);
    clock.advance(1);
    expect((await pending).status).toBe(200);
  });

  it('ends early when an agent goes to rest after the hold began', async () => {
    await start({ gemini: 1 });
    t.driver.agents.setEnabled(t.agents[0]!.id, false);
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'gemini' } });
    await until(() => t.driver.waiting() === 1);
    t.driver.agents.setEnabled(t.agents[0]!.id, true);
    t.driver.agents.coolDown(t.agents[0]!.id, clock.now() + 60 * 60_000);
    expect((await pending).status).toBe(504);
  });
});

describe('x-should-retry', () => {
  it('false on final outcomes and refusals of the request, true with Retry-After on 429', async () => {
    await start({ chatgpt: 1 });
    const rejected = await t.api('POST', '/v1/completions', { body: { prompt: 'no [[fail=rejected]]' } });
    expect(rejected.status).toBe(502);
    expect(rejected.headers.get('x-should-retry')).toBe('false');

    const hanging = t.api('POST', '/v1/completions', { body: { prompt: 'p [[hang]]' } });
    const running = await until(async () => (await t.driver.recent(10)).find((j) => j.prompt === 'p [[hang]]' && j.status === 'dispatched'));
    await t.api('DELETE', `/v1/completions/${running.id}`);
    const cancelled = await hanging;
    expect(cancelled.status).toBe(499);
    expect(cancelled.headers.get('x-should-retry')).toBe('false');

    const conflict = await t.api('POST', '/v1/completions', { body: { prompt: 'x', ...queued }, headers: { 'idempotency-key': 'k1' } });
    expect(conflict.status).toBe(202);
    const reused = await t.api('POST', '/v1/completions', { body: { prompt: 'y', ...queued }, headers: { 'idempotency-key': 'k1' } });
    expect(reused.status).toBe(409);
    expect(reused.headers.get('x-should-retry')).toBe('false');

    const invalid = await t.api('POST', '/v1/completions', { body: { prompt: '' } });
    expect(invalid.headers.get('x-should-retry')).toBe('false');

    let limited = await t.api('GET', '/v1/status');
    while (limited.status !== 429) limited = await t.api('GET', '/v1/status');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
