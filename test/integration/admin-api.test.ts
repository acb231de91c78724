/**
 * The dashboard's API (/admin/v1): admin token only, the account's state, settings, agents,
 * keys, recent jobs with cancel, webhook secret, and the live event stream.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

let t: TestService;
let admin: string;
afterEach(async () => t?.stop());

async function start(agents: Parameters<typeof startTestService>[0] = {}) {
  t = await startTestService(agents);
  admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
}

const as = (method: string, path: string, body?: unknown) => t.api(method, path, { key: admin, body });

describe('dashboard API', () => {
  it('takes the admin token only', async () => {
    await start();
    expect((await t.api('GET', '/admin/v1/state', { key: null })).status).toBe(401);
    const withKey = await t.api('GET', '/admin/v1/state');
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe('FORBIDDEN');
    expect((await as('GET', '/admin/v1/state')).status).toBe(200);
  });

  it('asks every route under /admin/v1 for the admin token, before it reads the request (all but the proof, asked before the token is sent)', async () => {
    await start();
    // Every route the server has, from fastify's own tree of them: each line a segment, indented under its parent.
    const parents: string[] = [];
    const routes = t.service.app
      .printRoutes({ commonPrefix: false })
      .split('\n')
      .flatMap((line) => {
        const m = /^(.*?)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
        if (!m) return [];
        const depth = m[1]!.length / 4;
        const path = (parents[depth - 1] ?? '') + m[2]!;
        parents[depth] = path;
        return (m[3]?.split(', ') ?? []).filter((method) => method !== 'HEAD').map((method) => [method, path] as const);
      })
      .filter(([, path]) => path.startsWith('/admin/v1/') && path !== '/admin/v1/proof');
    expect(routes.length).toBeGreaterThan(25);
    for (const [method, pattern] of routes) {
      const path = pattern.replace(/:[a-z]+/g, 'x');
      // A body the route would refuse: the token is checked first all the same.
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{"not": "valid"}';
      const anonymous = await t.api(method, path, { key: null, body });
      expect([method, path, anonymous.status, anonymous.body?.error.code]).toEqual([method, path, 401, 'UNAUTHORIZED']);
      const withKey = await t.api(method, path, { body });
      expect([method, path, withKey.status, withKey.body?.error.code]).toEqual([method, path, 403, 'FORBIDDEN']);
    }
  });

  it('shows and changes settings and agents, and /v1/status follows', async () => {
    await start({ agents: { chatgpt: 2 } });
    const state = (await as('GET', '/admin/v1/state')).body;
    expect(state.settings).toMatchObject({ paused: false, rotation: 'round_robin', global_cap: null });
    expect(state.agents.map((a: { provider: string; state: string }) => [a.provider, a.state])).toEqual([
      ['chatgpt', 'idle'],
      ['chatgpt', 'idle'],
    ]);

    const changed = await as('PATCH', '/admin/v1/settings', { rotation: 'least_used', global_cap: 10, provider_caps: { chatgpt: 3 } });
    expect(changed.status).toBe(200);
    const status = (await t.api('GET', '/v1/status')).body;
    expect(status.rotation).toBe('least_used');
    expect(status.global.rate_limit_per_hour).toBe(10);
    expect(status.providers.chatgpt.rate_limit_per_hour).toBe(3);
    expect((await as('PATCH', '/admin/v1/settings', { rotation: 'fastest' })).body.error.details.field).toBe('rotation');
    expect((await as('PATCH', '/admin/v1/settings', { provider_caps: { bard: 1 } })).status).toBe(400);
    // Chat streaming: off by default, turned on here.
    expect(changed.body.settings.streaming).toBe(false);
    expect((await as('PATCH', '/admin/v1/settings', { streaming: true })).body.settings.streaming).toBe(true);
    expect(t.driver.settings.get().streaming).toBe(true);
    expect((await as('PATCH', '/admin/v1/settings', { streaming: 'yes' })).body.error.details.field).toBe('streaming');

    const id = state.agents[0].id;
    const agent = (await as('PATCH', `/admin/v1/agents/${id}`, { name: 'Work account', enabled: false, cap_per_hour: 5 })).body;
    expect(agent).toMatchObject({ name: 'Work account', enabled: false, state: 'paused', cap_per_hour: 5 });
    const ran = await t.api('POST', '/v1/completions', { body: { prompt: 'who runs this?' } });
    expect(ran.body.agent_id).toBe(state.agents[1].id);
    expect((await as('PATCH', '/admin/v1/agents/agt_missing', { enabled: true })).status).toBe(404);

    await as('PATCH', '/admin/v1/settings', { paused: true });
    const refused = await t.api('POST', '/v1/completions', { body: { prompt: 'p', wait: false } });
    expect(refused.body.error.code).toBe('NO_DEVICE_ONLINE');
  });

  it('creates keys that work at once, lists them without secrets, revokes them', async () => {
    await start();
    const created = await as('POST', '/admin/v1/keys', { name: 'my script', scopes: ['completions:read'], expires_in_days: 30 });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^cb_[0-9A-Za-z]{40}$/);
    expect(created.body.key.expires_at).toMatch(/Z$/);
    expect((await t.api('GET', '/v1/status', { key: created.body.secret })).status).toBe(200);
    const list = (await as('GET', '/admin/v1/keys')).body;
    expect(JSON.stringify(list)).not.toContain(created.body.secret);
    expect(list.find((k: { id: string }) => k.id === created.body.key.id).last_used_at).toMatch(/Z$/);
    expect((await as('POST', '/admin/v1/keys', { name: 'x', scopes: ['admin'] })).status).toBe(400);
    const revoked = await as('DELETE', `/admin/v1/keys/${created.body.key.id}`);
    expect(revoked.body.revoked_at).toMatch(/Z$/);
    expect((await t.api('GET', '/v1/status', { key: created.body.secret })).status).toBe(401);
  });

  it('lists recent jobs, shows one whole, and cancels one while its caller waits', async () => {
    await start({ agents: { claude: 1 } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'first' } });
    const waiting = t.api('POST', '/v1/completions', { body: { prompt: 'second [[hang]]' } });
    await until(() => t.agents[0]!.runs.length === 2);
    const jobs = (await as('GET', '/admin/v1/jobs?limit=10')).body.jobs;
    expect(jobs.map((j: { prompt_excerpt: string; status: string }) => [j.prompt_excerpt, j.status])).toEqual([
      ['second [[hang]]', 'dispatched'],
      ['first', 'succeeded'],
    ]);
    const detail = (await as('GET', `/admin/v1/jobs/${jobs[1].id}`)).body;
    expect(detail.prompt).toBe('first');
    expect(detail.job.response).toMatch(/^echo\(/);
    expect(detail.attempts[0]).toMatchObject({ attempt: 1, outcome: 'succeeded' });
    // How long it ran, in ms from the server: the attempt row's own times, not the whole-second timestamps.
    const [row] = await t.driver.attempts(jobs[1].id);
    expect(detail.attempts[0].run_ms).toBe(row!.ended_at! - row!.started_at);
    expect((await as('GET', `/admin/v1/jobs/${jobs[0].id}`)).body.attempts[0].run_ms).toBeNull();
    expect(detail.webhook).toBeNull();
    const cancelled = await as('POST', `/admin/v1/jobs/${jobs[0].id}/cancel`);
    expect(cancelled.body.job.status).toBe('cancelled');
    expect((await waiting).status).toBe(499);
    expect((await as('GET', '/admin/v1/jobs/job_missing')).status).toBe(404);
    expect((await as('GET', '/admin/v1/jobs?limit=abc')).status).toBe(400);
  });

  it("times a retried job's waits from the attempts: before each attempt, and the whole as the list's took_ms", async () => {
    await start({ agents: { claude: 1 } });
    await as('PATCH', '/admin/v1/settings', { pause_ms: 0 });
    const ran = await t.api('POST', '/v1/completions', { body: { prompt: 'fails once, then answers [[fail-once=provider_error]] [[ms=30]]' } });
    expect(ran.body.attempts).toBe(2);
    const detail = (await as('GET', `/admin/v1/jobs/${ran.body.id}`)).body;
    const job = (await t.driver.job(ran.body.id))!;
    const [first, second] = await t.driver.attempts(ran.body.id);
    expect(detail.attempts.map((a: { waited_ms: number }) => a.waited_ms)).toEqual([first!.started_at - job.created_at, second!.started_at - first!.ended_at!]);
    expect(detail.took_ms).toBe(job.finished_at! - job.created_at);
    const listed = (await as('GET', '/admin/v1/jobs?limit=1')).body.jobs[0];
    expect(listed.took_ms).toBe(detail.took_ms);
    // Waits and runs add up to the whole: the job finished as its last attempt ended.
    const parts = detail.attempts.reduce((sum: number, a: { waited_ms: number; run_ms: number }) => sum + a.waited_ms + a.run_ms, 0);
    expect(parts).toBe(detail.took_ms);
  });

  it('counts usage by local days within 14 hours of UTC, and refuses an offset beyond', async () => {
    await start();
    const days = await as('GET', '/admin/v1/usage?range=90d&tz_offset=-840');
    expect(days.status).toBe(200);
    expect(days.body.bucket_ms).toBe(86_400_000);
    // Local midnight at UTC-14 is 14:00 UTC.
    expect(days.body.since).toMatch(/T14:00:00Z$/);
    for (const offset of ['841', '-900']) {
      const refused = await as('GET', `/admin/v1/usage?tz_offset=${offset}`);
      expect([refused.status, refused.body.error.code, refused.body.error.details.field]).toEqual([400, 'INVALID_REQUEST', 'tz_offset']);
    }
  });

  it('shows and rotates the webhook signing secret', async () => {
    await start();
    const secret = (await as('GET', '/admin/v1/webhooks/secret')).body.secret;
    expect(secret).toMatch(/^whsec_/);
    const rotated = (await as('POST', '/admin/v1/webhooks/secret/rotate')).body.secret;
    expect(rotated).not.toBe(secret);
    expect((await as('GET', '/admin/v1/webhooks/secret')).body.secret).toBe(rotated);
    expect((await as('POST', '/admin/v1/jobs/job_missing/webhook/redeliver')).status).toBe(404);
  });

  it('streams the state at once, then each job change and the state after it', async () => {
    await start({ agents: { qwen: 1 } });
    const stream = await openEvents();
    const { events } = stream;
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    await until(() => events.length > 0);
    expect(events[0]!.event).toBe('state');
    expect(events[0]!.data.agents).toHaveLength(1);
    const done = await t.api('POST', '/v1/completions', { body: { prompt: 'live' } });
    await until(() => events.some((e) => e.event === 'job' && e.data.id === done.body.id && e.data.status === 'succeeded'));
    await until(() => events.filter((e) => e.event === 'state').length >= 2);
    expect(events.find((e) => e.event === 'job' && e.data.status === 'dispatched')?.data.agent_name).toBe('qwen-1');
    stream.close();
    await stream.done;
  });

  it('logs agent state changes and failed jobs, over GET /admin/v1/logs and as `log` events, for the admin token only', async () => {
    await start({ agents: { claude: 1 } });
    expect((await t.api('GET', '/admin/v1/logs', { key: null })).status).toBe(401);
    expect((await t.api('GET', '/admin/v1/logs')).status).toBe(403);
    const stream = await openEvents();
    await until(() => stream.events.length > 0);

    t.agents[0]!.setReadiness('needs_login');
    t.agents[0]!.setReadiness('idle');
    const failed = await t.api('POST', '/v1/completions', { body: { prompt: 'private words [[fail=rejected]]' } });
    expect(failed.body.error.code).toBe('PROMPT_REJECTED');
    const jobId: string = failed.body.error.details.job_id;

    const entries: { seq: number; at: string; level: string; source: string; message: string }[] = (await as('GET', '/admin/v1/logs')).body.entries;
    const lines = entries.map((e) => `${e.level} ${e.source} ${e.message}`);
    expect(lines[0]).toMatch(/^info service ChatBridge .* started on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toContain('info agent claude-1: started, idle');
    expect(lines).toContain('warn agent claude-1: idle → needs_login');
    expect(lines).toContain('info agent claude-1: needs_login → idle');
    expect(lines).toContain(`warn job Job ${jobId} failed after 1 try: PROMPT_REJECTED (The provider refused the prompt.)`);
    expect(entries.map((e) => e.seq)).toEqual([...entries.map((e) => e.seq)].sort((a, b) => a - b));
    expect(entries.every((e) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(e.at))).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('private words');

    const problems = (await as('GET', '/admin/v1/logs?level=warn&limit=1')).body.entries;
    expect(problems.map((e: { message: string }) => e.message)).toEqual([`Job ${jobId} failed after 1 try: PROMPT_REJECTED (The provider refused the prompt.)`]);
    expect((await as('GET', '/admin/v1/logs?level=debug')).status).toBe(400);
    expect((await as('GET', '/admin/v1/logs?limit=many')).status).toBe(400);

    await until(() => stream.events.some((e) => e.event === 'log' && e.data.source === 'job'));
    const logged = stream.events.filter((e) => e.event === 'log').map((e) => e.data);
    expect(logged.map((e) => e.message)).toEqual(['claude-1: idle → needs_login', 'claude-1: needs_login → idle', entries.at(-1)!.message]);
    expect(logged[0]).toEqual(entries.find((e) => e.message === 'claude-1: idle → needs_login'));
    stream.close();
    await stream.done;
  });
});

/** Reads /admin/v1/events with the admin token into `events` until closed. */
async function openEvents() {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/admin/v1/events`, { headers: { authorization: `Bearer ${admin}` }, signal: controller.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: any }[] = [];
  let buffer = '';
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
    }
  })();
  return { events, done, contentType: res.headers.get('content-type'), close: () => controller.abort() };
}
