/**
 * Variants through the service (issue 21): what the API takes and refuses, what the job
 * object says, /v1/models and chat completions' model, and the queue trying another agent
 * of the provider when one refuses a variant, then ending 502 VARIANT_UNAVAILABLE when none
 * may offer it; (issue 34) a hosted service's accounts asking only for the variants the
 * operator allows, and the hourly caps per variant. With scripted agents: an agent's `offers`
 * is what its account's picker has.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider, VariantInfo } from '../../main/core/providers.js';
import type { ProfileName } from '../../main/core/profile-name.js';
import { startTestService, type TestService } from '../support/harness.js';

/** The packs' variants as the service knows them: ChatGPT's pro thinks long, with its own attempt limit. */
const PRO_MS = 2_700_000;
const CATALOG: Partial<Record<Provider, VariantInfo[]>> = {
  chatgpt: [
    { id: 'instant', timeoutMs: null },
    { id: 'thinking', timeoutMs: null },
    { id: 'pro', timeoutMs: PRO_MS },
  ],
  deepseek: [{ id: 'deepthink', timeoutMs: null }],
};

let t: TestService;
afterEach(async () => t?.stop());

async function start(agents: Partial<Record<Provider, number>>, profile: ProfileName = 'personal'): Promise<TestService> {
  t = await startTestService({ listen: false, agents, variants: (p) => CATALOG[p] ?? [], profile });
  // The agents are tried in the user's order, so a test knows which refuses first.
  await t.driver.settings.setRotation('ordered');
  return t;
}

describe('asking for a variant', () => {
  it('refuses a variant without provider, and one the pack does not list, naming the known ones', async () => {
    await start({ chatgpt: 1 });
    const alone = await t.api('POST', '/v1/completions', { body: { prompt: 'p', variant: 'pro' } });
    expect(alone.status).toBe(400);
    expect(alone.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'variant' } });
    expect(alone.body.error.message).toContain('needs provider');

    const unknown = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'turbo' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('chatgpt has no variant "turbo"; its variants: instant, thinking, pro.');

    const none = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude', variant: 'pro' } });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toContain('its variants: none');

    const notString = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 3 } });
    expect(notString.status).toBe(400);
    expect(t.agents[0]!.runs).toHaveLength(0);
  });

  it('runs the job under its variant and says which model answered; without one the picker is left alone', async () => {
    await start({ chatgpt: 1 });
    const asked = await t.api('POST', '/v1/completions', { body: { prompt: 'hard question', provider: 'chatgpt', variant: 'thinking' } });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: 'succeeded', variant: 'thinking', model_used: 'model-thinking' });
    expect((await t.api('GET', `/v1/completions/${asked.body.id}`)).body).toMatchObject({ variant: 'thinking', model_used: 'model-thinking' });

    const plain = await t.api('POST', '/v1/completions', { body: { prompt: 'easy one' } });
    expect(plain.body).toMatchObject({ status: 'succeeded', variant: null, model_used: null });
    expect(t.agents[0]!.runs.map((r) => r.variant)).toEqual(['thinking', null]);
  });

  it('gives a long-thinking variant its own attempt limit: timeout_ms up to it and by default, the longest deadline by default; 400 past it', async () => {
    await start({ chatgpt: 1 });
    const times = async (body: Record<string, unknown>) => {
      const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', wait: false, ...body } });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const job = (await t.driver.job(r.body.id))!;
      return [job.timeout_ms, job.deadline_at - job.created_at];
    };
    expect(await times({ provider: 'chatgpt', variant: 'pro' })).toEqual([PRO_MS, 3_600_000]);
    expect(await times({ provider: 'chatgpt', variant: 'pro', timeout_ms: PRO_MS, deadline_ms: 3_000_000 })).toEqual([PRO_MS, 3_000_000]);
    expect(await times({ provider: 'chatgpt', variant: 'pro', timeout_ms: 60_000 })).toEqual([60_000, 3_600_000]);
    // The others keep the contract's.
    expect(await times({ provider: 'chatgpt', variant: 'thinking' })).toEqual([180_000, 900_000]);
    expect(await times({})).toEqual([180_000, 900_000]);
    // Chat completions take no timeout_ms: under the variant, its limit.
    const chat = await t.api('POST', '/v1/chat/completions', { body: { model: 'service/chatgpt/pro', messages: [{ role: 'user', content: 'hi' }] } });
    expect((await t.driver.job(chat.body.id))!.timeout_ms).toBe(PRO_MS);

    const refused = async (body: Record<string, unknown>) => {
      const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...body } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'timeout_ms' } });
      return r.body.error.message as string;
    };
    expect(await refused({ provider: 'chatgpt', variant: 'pro', timeout_ms: PRO_MS + 1 })).toBe(`timeout_ms is at most ${PRO_MS} under chatgpt/pro.`);
    expect(await refused({ provider: 'chatgpt', variant: 'thinking', timeout_ms: 600_001 })).toBe(
      `timeout_ms is at most 600000; only a long-thinking variant takes more (chatgpt/pro up to ${PRO_MS}).`,
    );
    expect(await refused({ timeout_ms: 3_600_001 })).toMatch(/timeout_ms/);
  });

  it('lists service/<provider>/<variant> after each provider in /v1/models, and takes them in chat completions', async () => {
    await start({ chatgpt: 1 });
    const models = await t.api('GET', '/v1/models');
    expect(models.body.data.map((m: { id: string }) => m.id)).toEqual([
      'service/auto',
      'service/chatgpt',
      'service/chatgpt/instant',
      'service/chatgpt/thinking',
      'service/chatgpt/pro',
    ]);
    expect(models.body.data.find((m: { id: string }) => m.id === 'service/chatgpt/pro').owned_by).toBe('chatgpt');

    const chat = await t.api('POST', '/v1/chat/completions', { body: { model: 'service/chatgpt/pro', messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(200);
    expect(chat.body.model).toBe('service/chatgpt/pro');
    expect((await t.driver.job(chat.body.id))!).toMatchObject({ req_provider: 'chatgpt', variant: 'pro', model_used: 'model-pro' });

    for (const model of ['service/chatgpt/turbo', 'service/chatgpt/', 'service/nosuch/pro', 'service/auto/pro', 'chatgpt/pro']) {
      const refused = await t.api('POST', '/v1/chat/completions', { body: { model, messages: [{ role: 'user', content: 'hi' }] } });
      expect(refused.status, model).toBe(400);
      expect(refused.body.error, model).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'model' } });
    }
    expect(t.agents[0]!.runs).toHaveLength(1);
  });
});

describe('an agent whose account lacks the variant', () => {
  it('is passed by: another agent of the provider answers, and the one that refused stays ready', async () => {
    await start({ chatgpt: 2 });
    const [free, plus] = t.agents;
    free!.offers = ['instant'];
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'pro' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'succeeded', agent_id: plus!.id, model_used: 'model-pro' });
    expect(free!.runs.map((run) => run.ended)).toEqual(['variant_unavailable']);
    const attempts = await t.driver.attempts(r.body.id);
    expect(attempts.map((a) => [a.agent_id, a.error_code])).toEqual([
      [free!.id, 'VARIANT_UNAVAILABLE'],
      [plus!.id, null],
    ]);
    // Not rested nor set aside: the account is fine.
    expect(t.driver.agents.state(free!.id)).toBe('idle');
    expect(t.driver.agents.cooldownUntil(free!.id)).toBeNull();

    // Known now: the next job for that variant goes to the agent that offers it at once.
    const again = await t.api('POST', '/v1/completions', { body: { prompt: 'q', provider: 'chatgpt', variant: 'pro' } });
    expect(again.body.agent_id).toBe(plus!.id);
    expect(free!.runs).toHaveLength(1);
    // A job without a variant still goes to the first agent.
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'r', provider: 'chatgpt' } })).body.agent_id).toBe(free!.id);
  });

  it('ends the job 502 VARIANT_UNAVAILABLE naming the variant and what was offered when no agent may offer it', async () => {
    await start({ chatgpt: 3 });
    const [a, b, c] = t.agents;
    a!.offers = ['instant'];
    b!.offers = ['instant', 'thinking'];
    c!.offers = ['instant'];
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'pro' } });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('VARIANT_UNAVAILABLE');
    expect(r.body.error.message).toContain('"pro"');
    expect(r.body.error.message).toContain('Variants offered: instant.');
    // Each agent tried once (refusals spend no attempt, so all three could), none answered.
    for (const agent of [a, b, c]) expect(agent!.runs.map((run) => run.ended)).toEqual(['variant_unavailable']);
    const [job] = await t.driver.recent(1);
    expect(job).toMatchObject({ status: 'failed', variant: 'pro', model_used: null, attempts: 3 });
  });

  it('whose picker did not open is passed by for that variant only: what its account offers is not known', async () => {
    await start({ chatgpt: 2 });
    const [slow, other] = t.agents;
    const r = await t.api('POST', '/v1/completions', { body: { prompt: `p [[no-picker-on=${slow!.id}]]`, provider: 'chatgpt', variant: 'pro' } });
    expect(r.body).toMatchObject({ status: 'succeeded', agent_id: other!.id });
    const [refusal] = await t.driver.attempts(r.body.id);
    expect(refusal).toMatchObject({ agent_id: slow!.id, error_code: 'VARIANT_UNAVAILABLE' });
    expect(refusal!.detail).not.toContain('Variants offered');
    // Another variant still goes to the first agent in order; the refused one goes elsewhere until it is seen offered.
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'q', provider: 'chatgpt', variant: 'thinking' } })).body.agent_id).toBe(slow!.id);
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'r', provider: 'chatgpt', variant: 'pro' } })).body.agent_id).toBe(other!.id);
    t.service.scheduler.offers.learn(slow!.id, ['instant', 'thinking', 'pro']);
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 's', provider: 'chatgpt', variant: 'pro' } })).body.agent_id).toBe(slow!.id);
  });

  it('is not dispatched to when its last site check showed it lacks the variant', async () => {
    await start({ chatgpt: 2 });
    const [free, plus] = t.agents;
    // What a site check of the first account found (Service.attachAgents feeds checks to it).
    t.service.scheduler.offers.learn(free!.id, ['instant']);
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'thinking' } });
    expect(r.body).toMatchObject({ status: 'succeeded', agent_id: plus!.id });
    expect(free!.runs).toHaveLength(0);
  });

  it('is tried all the same when every agent is known to lack it: the page may have changed since', async () => {
    await start({ chatgpt: 1 });
    const [only] = t.agents;
    t.service.scheduler.offers.learn(only!.id, ['instant']);
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'pro' } });
    expect(r.status).toBe(200);
    expect(r.body.model_used).toBe('model-pro');
    // The answer put the knowledge right: pro is offered.
    expect(t.service.scheduler.offers.mayOffer(only!.id, 'pro')).toBe(true);
  });
});

describe("the operator's say over variants", () => {
  const chat = (model: string) => t.api('POST', '/v1/chat/completions', { body: { model, messages: [{ role: 'user', content: 'hi' }] } });

  it("lets a hosted service's accounts ask for none until allowed, then for those allowed only (403 naming them), listing only those", async () => {
    await start({ chatgpt: 1, deepseek: 1 }, 'hosted');
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'pro' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: 'chatgpt/pro is not open to the accounts of this service; the operator allows no variant (chatbridge settings variants allow).',
      details: { field: 'variant', allowed: [] },
    });
    expect((await chat('service/chatgpt/pro')).body.error).toMatchObject({ code: 'FORBIDDEN', details: { field: 'model', allowed: [] } });

    await t.driver.settings.setTenantVariants(['deepseek/deepthink', 'chatgpt/thinking']);
    const models = await t.api('GET', '/v1/models');
    expect(models.body.data.map((m: { id: string }) => m.id)).toEqual([
      'service/auto',
      'service/chatgpt',
      'service/chatgpt/thinking',
      'service/deepseek',
      'service/deepseek/deepthink',
    ]);
    const other = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'pro', wait: false } });
    expect([other.status, other.body.error.message]).toEqual([
      403,
      'chatgpt/pro is not open to the accounts of this service; the operator allows chatgpt/thinking, deepseek/deepthink (chatbridge settings variants allow).',
    ]);
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', variant: 'thinking' } })).body.status).toBe('succeeded');
    expect((await chat('service/deepseek/deepthink')).status).toBe(200);
    expect(t.agents.flatMap((a) => a.runs.map((r) => r.variant))).toEqual(['thinking', 'deepthink']);
  });

  it('holds the jobs of a variant to its hourly cap: the next one waits (or is refused now), saying why; other jobs run', async () => {
    await start({ chatgpt: 2 });
    await t.driver.settings.setVariantCap('chatgpt/pro', 1);
    const ask = (body: Record<string, unknown>) => t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', ...body } });
    expect((await ask({ variant: 'pro' })).body.status).toBe('succeeded');

    const now = await ask({ variant: 'pro', wait: false });
    expect([now.status, now.body.error.code, now.body.error.message]).toEqual([
      503,
      'PROVIDER_RATE_LIMITED',
      'For this job the hourly cap of chatgpt/pro (1 job an hour) is used up.',
    ]);
    const queued = await ask({ variant: 'pro', wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    expect(queued.status).toBe(202);
    expect((await ask({ variant: 'thinking' })).body.status).toBe('succeeded');
    expect((await ask({})).body.status).toBe('succeeded');
    await t.driver.settled();
    const waiting = await t.api('GET', `/v1/completions/${queued.body.id}`);
    expect(waiting.body).toMatchObject({ status: 'queued', waiting_because: 'the hourly cap of chatgpt/pro (1 job an hour) is used up' });
    expect(Date.parse(waiting.body.waiting_until) - Date.now()).toBeGreaterThan(3_500_000);

    // Taken off, the cap holds nothing back.
    await t.driver.settings.setVariantCap('chatgpt/pro', null);
    t.service.scheduler.wake();
    await t.driver.settled();
    expect((await t.driver.job(queued.body.id))!.status).not.toBe('queued');
  });
});
