/**
 * What `wait: false` without `callback_url` answers when nothing can take the job now (api.md
 * "Codes", 503 NO_AGENT_AVAILABLE and NO_DEVICE_ONLINE): the job is not kept; `agent_id` that
 * is not the account's is a 400, a busy one a 503. (The 1 000-queued-jobs limit is
 * queued-jobs-limit.test.ts's.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

let t: TestService;
afterEach(async () => t?.stop());
const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

describe('capacity answers for wait:false without callback_url', () => {
  it('503 NO_AGENT_AVAILABLE when no agent can take it, and the job is not kept', async () => {
    t = await startTestService({ listen: false, agents: { chatgpt: 1 } });
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude', wait: false } });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: 'NO_AGENT_AVAILABLE', details: { provider: 'claude' } });
    expect(await t.driver.recent(10)).toHaveLength(0);
    const ok = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'chatgpt', wait: false } });
    expect(ok.status).toBe(202);
    expect(Object.keys(ok.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(ok.body.status).toBe('queued');
  });

  it('503 NO_DEVICE_ONLINE while paused; other jobs still queue', async () => {
    t = await startTestService({ listen: false, agents: { chatgpt: 1 } });
    await t.driver.settings.setPaused(true);
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p', wait: false } });
    expect(r.body.error.code).toBe('NO_DEVICE_ONLINE');
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued } })).status).toBe(202);
  });

  it('400 for an agent_id that is not on the account, 503 for one that is busy', async () => {
    t = await startTestService({ listen: false, agents: { qwen: 1 } });
    const unknown = await t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: 'agt_nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.field).toBe('agent_id');
    const agentId = t.agents[0]!.id;
    const wrongProvider = await t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: agentId, provider: 'claude' } });
    expect(wrongProvider.status).toBe(400);
    const busy = t.api('POST', '/v1/completions', { body: { prompt: 'p [[ms=300]]', agent_id: agentId } });
    await until(() => t.agents[0]!.runs.length === 1);
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'q', agent_id: agentId, wait: false } });
    expect(refused.body.error.code).toBe('NO_AGENT_AVAILABLE');
    expect((await busy).body.agent_id).toBe(agentId);
  });
});
