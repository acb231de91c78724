/**
 * Profile H (api.md's (H) rules, decisions.md "Profile H") over real HTTP: the profile as a
 * setting stored with the data, and what it changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { type AccountStore } from '../../main/keys/account-store.js';
import { DataDirError, openDatabase } from '../../main/storage/sqlite/db.js';
import { Service } from '../../main/service/service.js';
import { buildServer } from '../../main/api/server.js';
import { type SweepResult } from '../../main/service/retention.js';
import { startTestService, tempDataDir, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { SqliteAccountStore } from '../../main/storage/sqlite/account-store.js';
import { ChatBridgeClient } from '../../main/client/index.js';
import { callTool } from '../../main/mcp/tools.js';
import { DAY_MS } from '../../main/core/timestamps.js';

let t: TestService | undefined;
/** Stops the service under test, once. */
async function stop(): Promise<void> {
  const running = t;
  t = undefined;
  await running?.stop();
}
afterEach(stop);

describe('the profile as a setting', () => {
  it('keeps a data dir in the profile it started with, and says so in one line', async () => {
    const dataDir = tempDataDir();
    try {
      t = await startTestService({ listen: false, profile: 'hosted', dataDir });
      await stop();
      const refused = await Service.start({ dataDir, http: buildServer, profile: 'personal' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DataDirError);
      expect((refused as Error).message).toMatch(/belongs to the hosted profile.*--profile hosted/);
      expect((refused as Error).message).not.toContain('\n');
      t = await startTestService({ listen: false, profile: 'hosted', dataDir });
      expect(t.service.profile.name).toBe('hosted');
    } finally {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('publishes the running profile in the OpenAPI document, priority range included', async () => {
    for (const [profile, max] of [
      ['personal', 100],
      ['hosted', 10],
    ] as const) {
      t = await startTestService({ listen: false, profile });
      const doc = (await t!.api('GET', '/v1/openapi.json')).body;
      expect(doc.info.title.includes('Profile H')).toBe(profile === 'hosted');
      const body = doc.paths['/v1/completions'].post.requestBody.content['application/json'].schema;
      expect(body.properties.priority).toMatchObject({ minimum: -10, maximum: max, default: 0 });
      expect(doc.paths['/v1/completions'].post.description.includes('stays queued')).toBe(profile === 'hosted');
      const job = doc.paths['/v1/completions/{id}'].get.responses['200'].content['application/json'].schema;
      expect('content_pruned_at' in job.properties).toBe(profile === 'hosted');
      // An account's own signing secret: only where keys belong to accounts.
      expect('/v1/webhooks/secret' in doc.paths && '/v1/webhooks/secret/rotate' in doc.paths).toBe(profile === 'hosted');
      await stop();
    }
  });
});

const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

/** What `chatbridge accounts …` does: another connection to the data dir, which the service hears within a second. */
async function asTheCommandLine<T>(dataDir: string, work: (accounts: AccountStore) => Promise<T>): Promise<T> {
  const db = openDatabase(dataDir);
  try {
    return await work(new SqliteAccountStore(db, systemClock, randomIds));
  } finally {
    db.close();
  }
}

describe('accounts', () => {
  it('a disabled account: its keys get 401 and its queued jobs are cancelled; other accounts go on', async () => {
    t = await startTestService({ listen: false, profile: 'hosted' });
    const other = await t.createAccount('other');
    const mine = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued } });
    const theirs = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, key: other.key });
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    await asTheCommandLine(t.dataDir, async (accounts) => expect(await accounts.disable(t!.account!)).toBe(true));
    await until(async () => (await t!.api('GET', '/v1/status')).status === 401, 15_000, 'the key to be refused');
    const refused = await t.api('GET', `/v1/completions/${mine.body.id}`);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    await until(async () => (await t!.driver.job(mine.body.id))?.status === 'cancelled', 15_000, 'the queued job to be cancelled');
    expect((await t.api('GET', `/v1/completions/${theirs.body.id}`, { key: other.key })).body.status).toBe('queued');
  });

  it('counts the 1 000-queued limit per account', async () => {
    t = await startTestService({ listen: false, profile: 'hosted' });
    const keys = [t.key, await t.createKey(['completions:write'])];
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        t!.api('POST', '/v1/completions', { body: { prompt: `p${i}`, ...queued }, key: keys[i % 2] }),
      ),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    const over = await t.api('POST', '/v1/completions', { body: { prompt: 'one more', ...queued } });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'FORBIDDEN', details: { limit: 1_000 } });
    const other = await t.createAccount('other');
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'mine fits', ...queued }, key: other.key })).status).toBe(202);
  });

  it('keeps Idempotency-Keys per account', async () => {
    t = await startTestService({ listen: false, profile: 'hosted' });
    const other = await t.createAccount('other');
    const headers = { 'idempotency-key': 'same-key' };
    const a = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, headers });
    const b = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, headers, key: other.key });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.id).not.toBe(b.body.id);
    const again = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, headers, key: other.key });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(b.body.id);
  });
});

const MS_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the job object and errors (H)', () => {
  it('202 carries the whole job: milliseconds, provider as requested, agent_name null, content_pruned_at null', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0, 123));
    t = await startTestService({ listen: false, profile: 'hosted', clock, agents: { claude: 1 } });
    const accepted = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued, metadata: { m: 1 } } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      status: 'queued',
      provider: null,
      agent_name: null,
      created_at: '2026-11-21T10:00:00.123Z',
      content_pruned_at: null,
      metadata: { m: 1 },
    });
    // It ran on claude; the job still names the provider requested: none.
    const done = await t.api('GET', `/v1/completions/${accepted.body.id}?wait=true`);
    expect(done.body).toMatchObject({ status: 'succeeded', provider: null, agent_name: null, content_pruned_at: null });
    expect(done.body.agent_id).toMatch(/^agt_/);
    expect(done.body.finished_at).toMatch(MS_TIMESTAMP);
    const named = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' } });
    expect(named.body).toMatchObject({ status: 'succeeded', provider: 'claude', agent_name: null });
  });

  it("queue_position is the number of the caller's jobs queued, whoever else waits", async () => {
    t = await startTestService({ listen: false, profile: 'hosted' });
    const other = await t.createAccount('other');
    for (let i = 0; i < 3; i++) await t.api('POST', '/v1/completions', { body: { prompt: `o${i}`, ...queued }, key: other.key });
    const first = await t.api('POST', '/v1/completions', { body: { prompt: 'a', ...queued, priority: -10 } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'b', ...queued, priority: 10 } });
    expect((await t.api('GET', `/v1/completions/${first.body.id}`)).body.queue_position).toBe(2);
  });

  it('wait: false that cannot start: the 503, the job kept queued in details.job_id, returned by its Idempotency-Key', async () => {
    t = await startTestService({ listen: false, profile: 'hosted' });
    const headers = { 'idempotency-key': 'retry-me' };
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', wait: false }, headers });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'NO_AGENT_AVAILABLE', details: { provider: 'qwen' } });
    const id = refused.body.error.details.job_id as string;
    expect((await t.api('GET', `/v1/completions/${id}`)).body).toMatchObject({ id, status: 'queued', queue_position: 1 });
    const again = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', wait: false }, headers });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'queued' });
    t.driver.attach({ qwen: 1 });
    expect((await t.api('GET', `/v1/completions/${id}?wait=true`)).body.status).toBe('succeeded');
  });

  it('job outcomes name the job: JOB_FAILED with the number of attempts, JOB_CANCELLED, JOB_TIMEOUT with its status', async () => {
    const clock = new ManualClock();
    t = await startTestService({ listen: false, profile: 'hosted', clock, agents: { chatgpt: 1 } });
    const failed = await t.api('POST', '/v1/completions', { body: { prompt: '[[fail=rejected]] p', provider: 'chatgpt' } });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ code: 'PROMPT_REJECTED', details: { attempts: 1 } });
    expect(failed.body.error.details.job_id).toMatch(/^job_/);

    const held = t.api('POST', '/v1/completions', { body: { prompt: '[[hang]] p', provider: 'chatgpt' } });
    const running = await until(async () => (await t!.driver.recent(10)).find((j) => j.status === 'dispatched'), 15_000, 'the job to run');
    expect((await t.api('DELETE', `/v1/completions/${running.id}`)).body.status).toBe('cancelled');
    expect((await held).body.error).toMatchObject({ code: 'JOB_CANCELLED', details: { job_id: running.id, status: 'cancelled' } });

    // No qwen agent: the hold ends at 600 s with the job queued, then the deadline expires it.
    const hold = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', deadline_ms: 900_000 } });
    const waiting = await until(async () => (await t!.driver.recent(10)).find((j) => j.status === 'queued'), 15_000, 'the job to queue');
    await until(() => t!.service.completions['holds'].size === 1, 15_000, 'the hold');
    clock.advance(600_000);
    expect((await hold).body.error).toMatchObject({ code: 'JOB_TIMEOUT', details: { job_id: waiting.id, status: 'queued' } });
    const expiring = t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', deadline_ms: 10_000 } });
    await until(() => t!.service.completions['holds'].size === 1, 15_000, 'the hold');
    clock.advance(10_000);
    expect((await expiring).body.error).toMatchObject({ code: 'JOB_TIMEOUT', details: { status: 'expired' } });
  });

  it("504s say why a job waits without naming the operator's agents or devices; agent_id errors neither", async () => {
    const clock = new ManualClock();
    t = await startTestService({ listen: false, profile: 'hosted', clock, agents: { chatgpt: 1 } });
    const agent = t.driver.agents.list()[0]!;
    t.driver.agents.rename(agent.id, 'basement-laptop-7');
    t.driver.agents.setEnabled(agent.id, false);
    const hold = t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: agent.id, deadline_ms: 900_000 } });
    await until(() => t!.service.completions['holds'].size === 1, 15_000, 'the hold');
    clock.advance(600_000);
    const held = (await hold).body.error;
    expect(held.code).toBe('JOB_TIMEOUT');
    expect(held.message).not.toContain('basement-laptop-7');
    expect(held.message).toMatch(/\(no agent can take it until the operator acts\)/);
    const expiring = t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: agent.id, deadline_ms: 10_000 } });
    await until(() => t!.service.completions['holds'].size === 1, 15_000, 'the hold');
    clock.advance(10_000);
    const expired = (await expiring).body.error;
    expect(expired.message).toBe('The job deadline passed; it will not run again. It never started: no agent can take it until the operator acts.');

    // Another provider's agent and one that does not exist read the same.
    const wrong = await t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: agent.id, provider: 'claude', ...queued } });
    const unknown = await t.api('POST', '/v1/completions', { body: { prompt: 'p', agent_id: 'agt_nope', provider: 'claude', ...queued } });
    expect(wrong.body.error.message).toBe(unknown.body.error.message.replace('agt_nope', agent.id));
    expect(wrong.body.error.message).not.toContain('chatgpt');
  });

  it('priority -10 to 10, default 0; the length bounds; a continuation names the same provider', async () => {
    t = await startTestService({ listen: false, profile: 'hosted', agents: { claude: 1 } });
    const field = async (body: object, headers: Record<string, string> = {}) => {
      const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued, ...body }, headers });
      return r.status === 400 ? r.body.error.details.field : r.status;
    };
    expect(await field({ priority: 11 })).toBe('priority');
    expect(await field({ priority: -11 })).toBe('priority');
    expect(await field({ priority: 10 })).toBe(202);
    expect(await field({ callback_url: `https://example.com/${'x'.repeat(2_030)}` })).toBe('callback_url');
    expect(await field({ mode: 'continue', conversation_ref: 'c'.repeat(2_049) })).toBe('conversation_ref');
    expect(await field({}, { 'idempotency-key': 'k'.repeat(256) })).toMatch(/idempotency-key/i);
    expect(await field({}, { 'idempotency-key': 'k'.repeat(255) })).toBe(202);

    const first = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' } });
    const ref = first.body.conversation_ref as string;
    const wrong = await t.api('POST', '/v1/completions', { body: { prompt: 'p', mode: 'continue', conversation_ref: ref, provider: 'qwen' } });
    expect(wrong.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'provider' } });
    const right = await t.api('POST', '/v1/completions', { body: { prompt: 'p', mode: 'continue', conversation_ref: ref, provider: 'claude' } });
    expect(right.body).toMatchObject({ status: 'succeeded', conversation_ref: ref });
  });
});

describe('retention per account (H)', () => {
  it("removes the text of an account's finished jobs past its own period; the job and its conversation stay", async () => {
    const clock = new ManualClock();
    t = await startTestService({ listen: false, profile: 'hosted', clock, agents: { claude: 1 } });
    /** One sweep that starts at the clock's time now (after the one under way, if any, ended). */
    const sweep = async () => {
      await t!.service.retention.idle();
      const ended = new Promise<SweepResult>((resolve) => {
        const stop = t!.service.retention.onSweep((result) => {
          stop();
          resolve(result);
        });
      });
      t!.service.retention.wake();
      return ended;
    };
    const brief = await t.createAccount('brief', 1);
    const short = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' }, key: brief.key });
    const kept = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' } });
    expect([short.body.status, kept.body.status]).toEqual(['succeeded', 'succeeded']);
    const prunedCount = async () => (await t!.driver.recent(10)).filter((j) => j.content_pruned_at !== null).length;
    clock.advance(DAY_MS - 60_000);
    await sweep();
    expect(await prunedCount()).toBe(0); // a minute short of the day
    clock.advance(2 * 60_000);
    await sweep();
    expect(await prunedCount()).toBe(1); // only the 1-day account's job
    const pruned = await t.api('GET', `/v1/completions/${short.body.id}`, { key: brief.key });
    expect(pruned.body).toMatchObject({ status: 'succeeded', response: null, run_ms: short.body.run_ms });
    expect(pruned.body.content_pruned_at).toMatch(MS_TIMESTAMP);
    expect((await t.api('GET', `/v1/completions/${kept.body.id}`)).body).toMatchObject({ response: kept.body.response, content_pruned_at: null });
    const continued = await t.api('POST', '/v1/completions', {
      body: { prompt: 'again', mode: 'continue', conversation_ref: short.body.conversation_ref },
      key: brief.key,
    });
    expect(continued.body.status).toBe('succeeded');
  });
});

describe('isolation between accounts (H)', () => {
  it("every endpoint refuses another account's job and conversation as if they did not exist", async () => {
    t = await startTestService({ listen: false, profile: 'hosted', agents: { claude: 1 } });
    const other = await t.createAccount('other');
    const done = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' } });
    const waiting = await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', ...queued } });
    const as = (method: string, path: string, body?: unknown) => t!.api(method, path, { key: other.key, ...(body ? { body } : {}) });
    const notFound = { code: 'NOT_FOUND' };

    for (const id of [done.body.id, waiting.body.id]) {
      expect((await as('GET', `/v1/completions/${id}`)).body.error).toMatchObject(notFound);
      expect((await as('GET', `/v1/completions/${id}?wait=true`)).body.error).toMatchObject(notFound);
      expect((await as('DELETE', `/v1/completions/${id}`)).body.error).toMatchObject(notFound);
    }
    expect((await t.driver.job(waiting.body.id))!.status).toBe('queued'); // the DELETE did nothing
    const continued = await as('POST', '/v1/completions', { prompt: 'p', mode: 'continue', conversation_ref: done.body.conversation_ref });
    expect(continued.status).toBe(400);
    expect(continued.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'conversation_ref' } });
    // The same refusal as a made-up ref: nothing tells that the conversation exists.
    const madeUp = await as('POST', '/v1/completions', { prompt: 'p', mode: 'continue', conversation_ref: 'cv_madeup' });
    expect(madeUp.body.error.message).toBe(continued.body.error.message);

    const theirStatus = (await as('GET', '/v1/status')).body;
    expect(theirStatus.queue).toEqual({ depth: 0, oldest_queued_at: null });
    expect((await t.api('GET', '/v1/status')).body.queue.depth).toBe(1);
    expect((await as('GET', '/admin/v1/state')).status).toBe(403);
    // The owner still sees and cancels its own.
    expect((await t.api('DELETE', `/v1/completions/${waiting.body.id}`)).body.status).toBe('cancelled');
  });
});

describe('fairness between accounts (H)', () => {
  it("a busy account does not starve another: each free agent takes the accounts' jobs in turn, each account's by priority then age", async () => {
    t = await startTestService({ listen: false, profile: 'hosted', agents: { claude: 1 } });
    const [agent] = t.agents;
    agent!.setReadiness('needs_login'); // the work piles up first
    const other = await t.createAccount('other');
    const submit = (prompt: string, key: string, priority = 0) =>
      t!.api('POST', '/v1/completions', { body: { prompt, provider: 'claude', priority, ...queued }, key });
    for (let i = 1; i <= 6; i++) expect((await submit(`busy-${i}`, t.key, i === 6 ? 5 : 0)).status).toBe(202);
    for (let i = 1; i <= 2; i++) expect((await submit(`quiet-${i}`, other.key)).status).toBe(202);
    agent!.setReadiness('idle');
    await until(() => agent!.runs.length === 8, 15_000, 'every job to run');
    const order = agent!.runs.map((r) => r.prompt);
    // The quiet account, which came last, is served every other job...
    expect(order.filter((_, i) => i % 2 === (order[0]!.startsWith('quiet') ? 0 : 1)).slice(0, 2)).toEqual(['quiet-1', 'quiet-2']);
    // ...and the busy one in its own order: priority first, then age.
    expect(order.filter((p) => p.startsWith('busy'))).toEqual(['busy-6', 'busy-1', 'busy-2', 'busy-3', 'busy-4', 'busy-5']);
  });
});

describe('/v1/status (H)', () => {
  it("shows the per-provider figures all accounts share and the caller's own queue, nothing of the operator's agents", async () => {
    t = await startTestService({ profile: 'hosted', agents: { claude: 2 } });
    await t.driver.settings.setProviderCap('claude', 50);
    const other = await t.createAccount('other');
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'claude' }, key: other.key })).status).toBe(200);
    await t.api('POST', '/v1/completions', { body: { prompt: 'p', provider: 'qwen', ...queued } });
    const status = (await t.api('GET', '/v1/status')).body;
    expect(Object.keys(status).sort()).toEqual(['providers', 'queue']);
    expect(status.providers.claude).toEqual({ agents_idle: 2, agents_total: 2, rate_limit_per_hour: 50, used_this_hour: 1, next_slot_at: null });
    expect(status.queue.depth).toBe(1);
    expect(status.queue.oldest_queued_at).toMatch(MS_TIMESTAMP);
    expect(JSON.stringify(status)).not.toContain('claude-1'); // no agent names

    // The MCP status tool says what the hosted body holds, and leaves out what it does not.
    const client = new ChatBridgeClient({ baseUrl: t.url, apiKey: t.key, maxRetries: 0 });
    const told = await callTool('status', {}, { client, signal: new AbortController().signal, progress: () => {}, maxWaitMs: 1_000 });
    expect(told.isError).toBeUndefined();
    expect(told.content[0]!.text.split('\n').slice(0, 3)).toEqual(['ChatBridge is running.', 'Queue: 1 job waiting.', 'chatgpt: no account added']);
    expect(told.content[0]!.text).toMatch(/^claude: 2 of 2 agents idle; 49 of 50 left this hour$/m);
  });
});

describe("the dashboard's operator view (H)", () => {
  it('lists accounts with queue depth, usage this hour and today, keys and retention; a key is made for an account', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    t = await startTestService({ listen: false, profile: 'hosted', clock, agents: { claude: 1 } });
    const admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const asAdmin = (method: string, path: string, body?: unknown) => t!.api(method, path, { key: admin, ...(body ? { body } : {}) });
    const other = await t.createAccount('other', 7);
    await t.api('POST', '/v1/completions', { body: { prompt: 'early', provider: 'claude' } });
    clock.advance(2 * 3_600_000); // two hours later: today, not this hour
    await t.api('POST', '/v1/completions', { body: { prompt: 'now', provider: 'claude' } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'waits', provider: 'qwen', ...queued } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'theirs', provider: 'claude' }, key: other.key });

    expect((await asAdmin('GET', '/admin/v1/state')).body.profile).toBe('hosted');
    const byName = async () => ((await asAdmin('GET', '/admin/v1/accounts')).body as any[]).sort((a, b) => a.name.localeCompare(b.name));
    expect((await byName()).map((a) => [a.name, a.queue_depth, a.used_this_hour, a.used_today, a.retention_days, a.keys.length])).toEqual([
      ['other', 0, 1, 1, 7, 1],
      ['test', 1, 1, 2, null, 1],
    ]);

    expect((await asAdmin('POST', '/admin/v1/keys', { name: 'k', scopes: ['completions:read'] })).body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'account_id' },
    });
    const made = await asAdmin('POST', '/admin/v1/keys', { name: 'k', scopes: ['completions:read'], account_id: other.id });
    expect(made.status).toBe(201);
    expect((await t.api('GET', '/v1/status', { key: made.body.secret })).status).toBe(200);
    expect((await byName())[0].keys).toHaveLength(2);
  });
});
