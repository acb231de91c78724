/**
 * The queue's rules through the real HTTP API, with time injected: priorities, per-attempt
 * timeouts, deadlines, retries, cancel, caps, rotation and continued conversations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../main/core/providers.js';
import { HOUR_MS } from '../../main/queue/hourly-usage.js';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';

let t: TestService;
let clock: ManualClock;
afterEach(async () => t?.stop());

async function start(agents: Partial<Record<Provider, number>>) {
  clock = new ManualClock();
  t = await startTestService({ listen: false, agents, clock });
  return t;
}

const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };
const job = async (id: string) => (await t.driver.job(id))!;

describe('dispatch order', () => {
  it('runs higher priority first, then older; reports queue_position', async () => {
    await start({ chatgpt: 1 });
    await t.driver.settings.setPaused(true);
    const ids: string[] = [];
    for (const [prompt, priority] of [['a', 0], ['b', 5], ['c', 5], ['d', -1], ['e', 100]] as const) {
      const r = await t.api('POST', '/v1/completions', { body: { prompt, priority, ...queued } });
      expect(r.status).toBe(202);
      ids.push(r.body.id);
      t.driver.advance(1_000);
    }
    const positions = await Promise.all(ids.map(async (id) => (await t.api('GET', `/v1/completions/${id}`)).body.queue_position));
    expect(positions).toEqual([4, 2, 3, 5, 1]);
    // The scheduler hears the change: nobody wakes it by hand.
    await t.driver.settings.setPaused(false);
    for (const id of ids) expect((await t.driver.ended(id)).status).toBe('succeeded');
    expect(t.agents[0]!.runs.map((r) => r.prompt)).toEqual(['e', 'b', 'c', 'a', 'd']);
    const done = (await t.api('GET', `/v1/completions/${ids[0]}`)).body;
    expect(done.queue_position).toBeUndefined();
    expect(done.finished_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('never answers a named provider from another one', async () => {
    await start({ chatgpt: 2 });
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'x', provider: 'claude', ...queued } });
    expect(r.status).toBe(202);
    await t.driver.settled();
    expect((await job(r.body.id)).status).toBe('queued');
    expect(t.agents.every((a) => a.runs.length === 0)).toBe(true);
  });

  it('rotates provider-less jobs round robin, and by least use or order when told', async () => {
    await start({ chatgpt: 1, claude: 1, gemini: 1 });
    for (let i = 0; i < 6; i++) {
      const r = await t.api('POST', '/v1/completions', { body: { prompt: `rr${i}` } });
      expect(r.status).toBe(200);
    }
    expect(t.agents.map((a) => a.runs.length)).toEqual([2, 2, 2]);
    await t.driver.settings.setRotation('ordered');
    for (let i = 0; i < 3; i++) await t.api('POST', '/v1/completions', { body: { prompt: `o${i}` } });
    expect(t.agents.map((a) => a.runs.length)).toEqual([5, 2, 2]);
    await t.driver.settings.setRotation('least_used');
    for (let i = 0; i < 6; i++) await t.api('POST', '/v1/completions', { body: { prompt: `l${i}` } });
    expect(t.agents.map((a) => a.runs.length)).toEqual([5, 5, 5]);
  });

  it('runs jobs on two agents of one provider in parallel, one job per agent', async () => {
    await start({ qwen: 2 });
    const a = t.api('POST', '/v1/completions', { body: { prompt: 'one [[ms=300]]' } });
    const b = t.api('POST', '/v1/completions', { body: { prompt: 'two [[ms=300]]' } });
    await until(() => t.agents.every((x) => x.runs.length === 1));
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.body.agent_id).not.toBe(rb.body.agent_id);
  });
});

describe('attempts, timeouts and deadlines', () => {
  it('retries a failed attempt and keeps the original queue_ms', async () => {
    await start({ deepseek: 1 });
    await t.driver.settings.setPaused(true);
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[fail-once=provider_error]]', ...queued } });
    t.driver.advance(2_500);
    await t.driver.settings.setPaused(false);
    expect((await t.driver.ended(sub.body.id)).status).toBe('succeeded');
    const done = await job(sub.body.id);
    expect(done.attempts).toBe(2);
    expect(done.queue_ms).toBe(2_500);
    const attempts = await t.driver.attempts(sub.body.id);
    expect(attempts.map((a) => [a.outcome, a.error_code])).toEqual([
      ['failed', 'PROVIDER_ERROR'],
      ['succeeded', null],
    ]);
  });

  it('bounds each attempt by timeout_ms and fails after three, with the attempts in details', async () => {
    await start({ claude: 1 });
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p [[hang]]', timeout_ms: 5_000 } });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await until(() => t.agents[0]!.runs.length === attempt && t.driver.isRunningOn(t.agents[0]!.id));
      t.driver.advance(5_000);
    }
    const r = await pending;
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('JOB_FAILED');
    expect(r.body.error.details.attempts).toHaveLength(3);
    expect(r.body.error.details.attempts[0]).toEqual({
      attempt: 1,
      agent_id: t.agents[0]!.id,
      provider: 'claude',
      started_at: expect.any(String),
      ended_at: expect.any(String),
      outcome: 'timed_out',
      error_code: 'ATTEMPT_TIMEOUT',
    });
    expect(t.agents[0]!.runs.map((x) => x.ended)).toEqual(['timed_out', 'timed_out', 'timed_out']);
  });

  it('expires a queued job at its deadline, and a running one too, stopping its agent', async () => {
    await start({ gemini: 1 });
    const running = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[hang]]', deadline_ms: 10_000, ...queued } });
    const waiting = await t.api('POST', '/v1/completions', { body: { prompt: 'q', deadline_ms: 20_000, ...queued } });
    await until(async () => (await job(running.body.id)).status === 'dispatched');
    t.driver.advance(10_000);
    expect((await job(running.body.id)).status).toBe('expired');
    await until(() => t.agents[0]!.runs[0]!.ended === 'expired');
    // The agent is free again, so the second job ran and finished before its deadline.
    expect((await t.driver.ended(waiting.body.id)).status).toBe('succeeded');
    const expired = (await t.api('GET', `/v1/completions/${running.body.id}`)).body;
    expect(expired.error.code).toBe('JOB_TIMEOUT');
    expect((await t.driver.attempts(running.body.id))[0]!.outcome).toBe('timed_out');
  });

  it('holds wait:true for min(deadline, 600 s), then 504 while the job continues', async () => {
    await start({ perplexity: 1 });
    await t.driver.settings.setPaused(true);
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p', deadline_ms: 3_600_000 } });
    await until(() => t.driver.waiting() === 1);
    t.driver.advance(599_999);
    expect(t.driver.waiting()).toBe(1);
    t.driver.advance(1);
    const r = await pending;
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe('JOB_TIMEOUT');
    expect(r.body.error.details.status).toBe('queued');
    expect((await job(r.body.error.details.job_id)).status).toBe('queued');
  });

  it('holds GET ?wait=true and answers 200 with the job as it is', async () => {
    await start({});
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p', deadline_ms: 60_000, ...queued } });
    const pending = t.api('GET', `/v1/completions/${sub.body.id}?wait=true`);
    await until(() => t.driver.waiting() === 1);
    t.driver.advance(60_000);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('expired');
  });
});

describe('cancel', () => {
  it('cancels a queued job at once; it never runs', async () => {
    await start({ chatgpt: 1 });
    await t.driver.settings.setPaused(true);
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued } });
    const r = await t.api('DELETE', `/v1/completions/${sub.body.id}`);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    await t.driver.settings.setPaused(false);
    await t.driver.settled();
    expect(t.agents[0]!.runs).toHaveLength(0);
    const again = await t.api('DELETE', `/v1/completions/${sub.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
  });

  it('cancels a running job: the waiting caller gets 499 and the agent is told to stop', async () => {
    await start({ claude: 1 });
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p [[hang]]' } });
    await until(() => t.agents[0]!.runs.length === 1);
    const id = (await t.driver.recent(1))[0]!.id;
    const r = await t.api('DELETE', `/v1/completions/${id}`);
    expect(r.body.status).toBe('cancelled');
    const waited = await pending;
    expect(waited.status).toBe(499);
    expect(waited.body.error.code).toBe('JOB_CANCELLED');
    await until(() => t.agents[0]!.runs[0]!.ended === 'cancelled');
    expect((await t.driver.attempts(id))[0]!.outcome).toBe('cancelled');
    // The agent takes the next job right after.
    const next = await t.api('POST', '/v1/completions', { body: { prompt: 'next' } });
    expect(next.status).toBe(200);
  });
});

describe('hourly caps', () => {
  it('stops an agent at its cap, waits for the rolling hour, and reports the next slot', async () => {
    await start({ chatgpt: 1 });
    t.driver.agents.setCap(t.agents[0]!.id, 1);
    const firstAt = clock.now();
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'one' } })).status).toBe(200);
    t.driver.advance(60_000);
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'two', wait: false } });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('PROVIDER_RATE_LIMITED');
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'two', deadline_ms: 3_600_000, ...queued } });
    const status = (await t.api('GET', '/v1/status')).body;
    expect(status.devices[0].agents[0].next_slot_at).toBe(new Date(firstAt + HOUR_MS).toISOString().replace('.000Z', 'Z'));
    await t.driver.settled();
    expect((await job(sub.body.id)).status).toBe('queued');
    t.driver.advance(HOUR_MS - 60_001);
    await t.driver.settled();
    expect((await job(sub.body.id)).status).toBe('queued');
    t.driver.advance(1);
    expect((await t.driver.ended(sub.body.id)).status).toBe('succeeded');
  });

  it('applies provider and global caps, and sends the job to an agent still under them', async () => {
    await start({ chatgpt: 1, claude: 1 });
    await t.driver.settings.setProviderCap('chatgpt', 1);
    await t.api('POST', '/v1/completions', { body: { prompt: 'a', provider: 'chatgpt' } });
    const b = await t.api('POST', '/v1/completions', { body: { prompt: 'b' } });
    expect(b.body.provider).toBe('claude');
    await t.driver.settings.setGlobalCap(2);
    const c = await t.api('POST', '/v1/completions', { body: { prompt: 'c', wait: false } });
    expect(c.body.error.code).toBe('PROVIDER_RATE_LIMITED');
    const status = (await t.api('GET', '/v1/status')).body;
    expect(status.global).toMatchObject({ rate_limit_per_hour: 2, used_this_hour: 2 });
    expect(status.providers.chatgpt).toMatchObject({ rate_limit_per_hour: 1, used_this_hour: 1, agents_total: 1 });
  });
});

describe('agent conditions', () => {
  it('moves a job off an agent that hit its usage limit, which then cools down', async () => {
    await start({ chatgpt: 2 });
    const [first, second] = t.agents;
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[fail-once=rate_limited]]' } });
    expect(r.status).toBe(200);
    expect(r.body.attempts).toBe(2);
    expect(r.body.agent_id).toBe(second!.id);
    const status = (await t.api('GET', '/v1/status')).body;
    const cooling = status.devices[0].agents.find((a: { id: string }) => a.id === first!.id);
    expect(cooling.cooldown_until).not.toBeNull();
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'q' } })).body.agent_id).toBe(second!.id);
    t.driver.advance(HOUR_MS);
    await t.driver.settings.setRotation('ordered');
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'r' } })).body.agent_id).toBe(first!.id);
  });

  it('continues a conversation on the agent that owns it', async () => {
    await start({ claude: 2 });
    const one = await t.api('POST', '/v1/completions', { body: { prompt: 'first' } });
    expect(one.body.conversation_ref).toMatch(/^cv_/);
    const two = await t.api('POST', '/v1/completions', {
      body: { prompt: 'second', mode: 'continue', conversation_ref: one.body.conversation_ref },
    });
    expect(two.status).toBe(200);
    expect(two.body.agent_id).toBe(one.body.agent_id);
    expect(two.body.conversation_ref).toBe(one.body.conversation_ref);
    expect(two.body.response).toBe(`echo(${one.body.agent_id}#2): second`);
    const owner = t.agents.find((a) => a.id === one.body.agent_id)!;
    expect(owner.runs[1]!.conversation).toBe(owner.runs[0]!.conversation ?? `script://${owner.id}/1`);
    const wrong = await t.api('POST', '/v1/completions', {
      body: { prompt: 'x', mode: 'continue', conversation_ref: one.body.conversation_ref, provider: 'chatgpt' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.field).toBe('provider');
  });
});
