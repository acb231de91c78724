/**
 * Caps, rotation, pause and status set from the command line while the scripted server runs:
 * each reaches it within one second, as its answers show.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRuns, api, heldAfter, withinOneSecond, CALLBACK } from '../support/cli-runs.js';
import { type Running } from '../support/processes.js';

const { tempDir, ok, scriptedWithKey } = cliRuns();

describe('caps, rotation, pause and status on a running server', () => {
  let dir: string;
  let key: string;
  let server: Running;

  const status = async () => (await api(server.url, key, 'GET', '/v1/status')).body;
  const submit = (body: Record<string, unknown>) => api(server.url, key, 'POST', '/v1/completions', body);
  const agentsByName = async () =>
    Object.fromEntries(((await status()).devices[0].agents as { id: string; name: string }[]).map((a) => [a.name, a.id]));

  beforeEach(async () => {
    dir = tempDir();
    ({ server, key } = await scriptedWithKey(dir, 'chatgpt=2,claude=1'));
  });

  it('caps set --provider chatgpt --per-hour 1 is honoured within one second; none lifts it', async () => {
    const r = await ok(['caps', 'set', '--provider', 'chatgpt', '--per-hour', '1', '--data-dir', dir]);
    await withinOneSecond('the chatgpt cap in /v1/status', r.endedAt, async () => (await status()).providers.chatgpt.rate_limit_per_hour === 1);

    const first = await submit({ prompt: 'first [[ms=10]]', provider: 'chatgpt' });
    expect(first.status).toBe(200);
    const refused = await submit({ prompt: 'second', provider: 'chatgpt', wait: false });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('PROVIDER_RATE_LIMITED');
    // With a callback the job is kept and waits.
    const waiting = await submit({ prompt: 'waits [[ms=10]]', provider: 'chatgpt', wait: false, callback_url: CALLBACK });
    expect(waiting.status).toBe(202);
    // Other providers are not capped.
    expect((await submit({ prompt: 'claude [[ms=10]]', provider: 'claude' })).status).toBe(200);
    // The rounds that dispatched the claude job, queued after it, passed the waiting one by.
    expect((await api(server.url, key, 'GET', `/v1/completions/${waiting.body.id}`)).body.status).toBe('queued');
    const s = await status();
    expect(s.providers.chatgpt).toMatchObject({ used_this_hour: 1, rate_limit_per_hour: 1, next_slot_at: expect.any(String) });
    expect(s.queue.depth).toBe(1);

    const lifted = await ok(['caps', 'set', '--provider', 'chatgpt', '--per-hour', 'none', '--data-dir', dir]);
    await withinOneSecond('the waiting chatgpt job to run', lifted.endedAt, async () =>
      (await api(server.url, key, 'GET', `/v1/completions/${waiting.body.id}`)).body.status === 'succeeded',
    );
    expect((await status()).providers.chatgpt.rate_limit_per_hour).toBeNull();
  });

  it('caps set --global caps every provider together', async () => {
    const r = await ok(['caps', 'set', '--global', '--per-hour', '2', '--data-dir', dir]);
    await withinOneSecond('the global cap in /v1/status', r.endedAt, async () => (await status()).global.rate_limit_per_hour === 2);
    expect((await submit({ prompt: 'a [[ms=10]]', provider: 'chatgpt' })).status).toBe(200);
    expect((await submit({ prompt: 'b [[ms=10]]', provider: 'claude' })).status).toBe(200);
    for (const provider of ['claude', 'chatgpt', null]) {
      const refused = await submit({ prompt: 'c', provider, wait: false });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('PROVIDER_RATE_LIMITED');
    }
    expect((await status()).global).toMatchObject({ used_this_hour: 2, rate_limit_per_hour: 2 });
  });

  it('caps set --agent ID caps one agent: its jobs go to the other agent of the provider', async () => {
    const ids = await agentsByName();
    expect(Object.keys(ids).sort()).toEqual(['chatgpt-1', 'chatgpt-2', 'claude-1']);
    const r = await ok(['caps', 'set', '--agent', ids['chatgpt-1']!, '--per-hour', '0', '--data-dir', dir]);
    await withinOneSecond('the agent cap in /v1/status', r.endedAt, async () =>
      (await status()).devices[0].agents.some((a: any) => a.id === ids['chatgpt-1'] && a.rate_limit_per_hour === 0),
    );
    for (let i = 0; i < 3; i++) {
      const done = await submit({ prompt: `job ${i} [[ms=10]]`, provider: 'chatgpt' });
      expect(done.status).toBe(200);
      expect(done.body.agent_id).toBe(ids['chatgpt-2']);
    }
    const r2 = await ok(['caps', 'set', '--agent', ids['claude-1']!, '--per-hour', '0', '--data-dir', dir]);
    await withinOneSecond('the claude agent cap', r2.endedAt, async () => {
      const refused = await submit({ prompt: 'claude', provider: 'claude', wait: false });
      return refused.status === 503 && refused.body.error.code === 'PROVIDER_RATE_LIMITED';
    });
  });

  it('rotation set least_used shows in /v1/status and decides where provider-less jobs run', async () => {
    const ids = await agentsByName();
    const r = await ok(['rotation', 'set', 'least_used', '--data-dir', dir]);
    expect(r.stdout).toContain('least_used');
    await withinOneSecond('rotation in /v1/status', r.endedAt, async () => (await status()).rotation === 'least_used');
    // Two jobs each on chatgpt-1 and claude-1; chatgpt-2 has none.
    for (const name of ['chatgpt-1', 'chatgpt-1', 'claude-1', 'claude-1']) {
      expect((await submit({ prompt: `pinned [[ms=5]]`, agent_id: ids[name] })).status).toBe(200);
    }
    // least_used sends both to chatgpt-2 (round robin would go on to chatgpt-1, then claude-1).
    for (let i = 0; i < 2; i++) {
      const done = await submit({ prompt: `auto ${i} [[ms=5]]` });
      expect(done.body.agent_id).toBe(ids['chatgpt-2']);
    }
    expect((await ok(['status', '--data-dir', dir])).stdout).toMatch(/rotation least_used/);
  });

  it('pause makes wait:false without callback 503 NO_DEVICE_ONLINE within one second; resume undoes it', async () => {
    const running = await submit({ prompt: 'running [[ms=1500]]', provider: 'claude', wait: false, callback_url: CALLBACK });
    // Taken by its agent (a slow machine may only look after its 1.5 s).
    await heldAfter('the job to run', Date.now(), async () => (await api(server.url, key, 'GET', `/v1/completions/${running.body.id}`)).body.status !== 'queued');
    const r = await ok(['pause', '--data-dir', dir]);
    await withinOneSecond('NO_DEVICE_ONLINE', r.endedAt, async () => {
      const res = await submit({ prompt: 'now?', wait: false });
      return res.status === 503 && res.body.error.code === 'NO_DEVICE_ONLINE';
    });
    expect((await status()).devices[0]).toMatchObject({ paused: true, online: false });
    expect((await ok(['status', '--data-dir', dir])).stdout).toMatch(/PAUSED/);
    // Jobs that may wait are kept, and wait.
    const kept = await submit({ prompt: 'kept [[ms=10]]', wait: false, callback_url: CALLBACK });
    expect(kept.status).toBe(202);

    // The job that was running when paused finishes; the kept one, which an idle agent could
    // have taken all along, is still queued after it.
    expect((await api(server.url, key, 'GET', `/v1/completions/${running.body.id}?wait=true`)).body.status).toBe('succeeded');
    expect((await api(server.url, key, 'GET', `/v1/completions/${kept.body.id}`)).body.status).toBe('queued');

    const resumed = await ok(['resume', '--data-dir', dir]);
    await withinOneSecond('the kept job to run after resume', resumed.endedAt, async () =>
      (await api(server.url, key, 'GET', `/v1/completions/${kept.body.id}`)).body.status === 'succeeded',
    );
    const now = await submit({ prompt: 'now [[ms=10]]', wait: false });
    expect(now.status).toBe(202);
    expect((await status()).devices[0]).toMatchObject({ paused: false, online: true });
  });

  it('status prints the figures; status --json is the /v1/status report', async () => {
    // One chatgpt agent busy, two gemini jobs queued (there is no gemini agent). The busy job
    // never ends by itself: two `chatbridge status` processes may take seconds on a loaded machine.
    const busy = await submit({ prompt: 'busy [[hang]]', provider: 'chatgpt', wait: false, callback_url: CALLBACK });
    expect(busy.status).toBe(202);
    for (let i = 0; i < 2; i++) {
      expect((await submit({ prompt: `gemini ${i}`, provider: 'gemini', wait: false, callback_url: CALLBACK })).status).toBe(202);
    }
    await heldAfter('the busy job to run', Date.now(), async () => (await status()).agents.busy === 1);

    const text = (await ok(['status', '--data-dir', dir])).stdout;
    expect(text).toContain(`ChatBridge at ${server.url}: running`);
    expect(text).toMatch(/^Queue: +2 queued, oldest since \d\d:\d\d:\d\d \((\d+ (s|min) ago|now)\)$/m);
    expect(text).toMatch(/^Agents: +2 idle, 1 busy, 3 in all; rotation round_robin$/m);
    expect(text).toMatch(/^Global: +\d+ used this hour, no cap$/m);
    expect(text).not.toMatch(/cap no cap/);
    expect(text).toMatch(/^chatgpt +1\/2 +1 +- /m);
    expect(text).toMatch(/^claude +1\/1 +0 +- /m);
    expect(text).toMatch(/^gemini +0\/0 +0 +- /m);
    expect(text).toMatch(/agt_\S+ +chatgpt +busy .*"chatgpt-1"|agt_\S+ +chatgpt +busy .*"chatgpt-2"/);
    expect(text).toMatch(/"claude-1"/);

    const json = JSON.parse((await ok(['status', '--json', '--data-dir', dir])).stdout);
    expect(json).toMatchObject({
      queue: { depth: 2, oldest_queued_at: expect.any(String) },
      agents: { idle: 2, busy: 1, total: 3 },
      providers: {
        chatgpt: { agents_idle: 1, agents_total: 2, used_this_hour: 1, rate_limit_per_hour: null },
        claude: { agents_idle: 1, agents_total: 1, used_this_hour: 0 },
        gemini: { agents_total: 0 },
      },
      rotation: 'round_robin',
    });
    expect(Object.keys(json.providers).sort()).toEqual(['chatgpt', 'claude', 'deepseek', 'gemini', 'perplexity', 'qwen']);
  });
});
