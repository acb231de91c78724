/**
 * Fail fast when every agent is set aside (issue 18 §4): a job that only agents set aside
 * with a changed site could run ends within 15 s with 502 PROVIDER_UI_CHANGED naming the
 * control, unless a look heals one of them first; a job another agent could still run
 * (one waiting for a login, say) keeps waiting. On the injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../main/core/providers.js';
import type { AttachmentCatalog } from '../../main/core/attachments.js';
import { completionDefaults } from '../../main/contract/schemas.js';
import { SET_ASIDE_GRACE_MS } from '../../main/queue/set-aside-jobs.js';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { ScriptedAgent } from '../support/scripted-agent.js';
import { until } from '../support/until.js';

/** A scripted agent that says why it is not ready, as a browser agent does. */
class ExplainingAgent extends ScriptedAgent {
  why = '';
  detail(): string {
    return this.why;
  }
  setAside(why: string): void {
    this.why = why;
    this.setReadiness('error');
  }
}

const COMPOSER_GONE = 'site changed: Claude: cannot find the composer (the page loaded without it).';

let t: TestService;
let clock: ManualClock;
afterEach(async () => t?.stop());

async function start(names: [Provider, string][], attachmentRules?: AttachmentCatalog): Promise<ExplainingAgent[]> {
  clock = new ManualClock();
  t = await startTestService({ listen: false, clock, ...(attachmentRules ? { attachmentRules } : {}) });
  return names.map(([provider, name]) => {
    const agent = new ExplainingAgent(t.driver.agents.create(provider, name).id, provider);
    t.driver.agents.attach(agent);
    return agent;
  });
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('every agent for a job set aside with a changed site', () => {
  it('a wait: true job ends with 502 PROVIDER_UI_CHANGED naming the control within 15 s', async () => {
    const [claude] = await start([['claude', 'claude-1'], ['chatgpt', 'chatgpt-1']]);
    claude!.setAside(COMPOSER_GONE);
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' } });
    await until(() => t.driver.waiting() === 1);
    const job = (await t.driver.recent(1))[0]!;
    expect((await t.service.admin.jobs.detail(job.id)).waiting_because).toBe('every Claude agent is set aside until its page works again (see the Agents page)');
    clock.advance(SET_ASIDE_GRACE_MS - 1);
    await tick();
    expect((await t.driver.job(job.id))!.status).toBe('queued');
    clock.advance(1);
    const r = await pending;
    expect(SET_ASIDE_GRACE_MS).toBeLessThan(15_000);
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UI_CHANGED');
    expect(r.body.error.message).toContain('Claude: cannot find the composer');
    expect(r.body.error.details.attempts).toEqual([expect.objectContaining({ agent_id: claude!.id, error_code: 'PROVIDER_UI_CHANGED' })]);
    // It never ran: nothing was typed into the changed page.
    expect(claude!.runs).toEqual([]);
    // Another provider's job is not touched.
    const other = await t.api('POST', '/v1/completions', { body: { prompt: 'q', provider: 'chatgpt' } });
    expect(other.status).toBe(200);
  });

  it('a look that heals an agent within the grace lets the job run', async () => {
    const [claude] = await start([['claude', 'claude-1']]);
    claude!.setAside(COMPOSER_GONE);
    const pending = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' } });
    await until(() => t.driver.waiting() === 1);
    clock.advance(SET_ASIDE_GRACE_MS / 2);
    claude!.setReadiness('idle');
    const r = await pending;
    expect(r.status).toBe(200);
    expect(claude!.runs.map((run) => run.prompt)).toEqual(['p']);
  });

  it('keeps waiting while another agent for it could still take it (one waiting for a login)', async () => {
    const [aside, loggedOut] = await start([['claude', 'claude-1'], ['claude', 'claude-2']]);
    aside!.setAside(COMPOSER_GONE);
    loggedOut!.setReadiness('needs_login');
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    expect(sub.status).toBe(202);
    clock.advance(60_000);
    await tick();
    expect((await t.driver.job(sub.body.id))!.status).toBe('queued');
    expect((await t.api('GET', `/v1/completions/${sub.body.id}`)).body.waiting_because).toBe(
      'no Claude agent is ready: logged out or set aside until its page works again (see the Agents page)',
    );
    // The last other agent set aside too: the job ends after the grace.
    loggedOut!.setAside(COMPOSER_GONE);
    const setAsideAt = clock.now();
    await until(async () => {
      if ((await t.driver.job(sub.body.id))!.status === 'failed') return true;
      clock.advance(500);
      return false;
    });
    expect(clock.now() - setAsideAt).toBeLessThan(15_000);
    expect((await t.driver.job(sub.body.id))!.error_code).toBe('PROVIDER_UI_CHANGED');
  });

  it("a job with files ends when every agent whose site takes them is set aside, whatever the others", async () => {
    // Claude's site takes text files; ChatGPT's here takes images only.
    const rules: AttachmentCatalog = (provider) => ({ types: provider === 'claude' ? ['text/*'] : ['image/*'], maxFileBytes: null, maxFiles: null });
    const [claude, chatgpt] = await start([['claude', 'claude-1'], ['chatgpt', 'chatgpt-1']], rules);
    claude!.setAside(COMPOSER_GONE);
    const { job } = await t.service.completions.submit({
      body: { ...completionDefaults(), prompt: 'read it', callback_url: 'https://127.0.0.1:9/hook' },
      idempotencyKey: undefined,
      path: '/v1/completions',
      rawBody: {},
      apiKeyId: 'key_test',
      accountId: null,
      attachments: [{ filename: 'notes.txt', media_type: 'text/plain', bytes: 2, sha256: 'ab'.repeat(32), data: Buffer.from('hi') }],
    });
    const submittedAt = clock.now();
    await until(async () => {
      if ((await t.driver.job(job.id))!.status === 'failed') return true;
      clock.advance(500);
      return false;
    });
    expect(clock.now() - submittedAt).toBeLessThan(15_000);
    expect((await t.driver.job(job.id))!.error_code).toBe('PROVIDER_UI_CHANGED');
    // The ChatGPT agent, ready all along, was never given a file its site would refuse.
    expect(chatgpt!.runs).toEqual([]);
  });
});
