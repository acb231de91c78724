/**
 * The guardrails against bans through /admin/v1: the global pause and an agent's own, and
 * an agent's proxy, checked with a reason (400 naming the field), stored, and shown back
 * with its password masked, in the API and the log alike.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';

let t: TestService;
let admin: string;
afterEach(async () => t?.stop());
const as = (method: string, path: string, body?: unknown) => t.api(method, path, { key: admin, body });

async function start() {
  t = await startTestService({ listen: false, agents: { claude: 1 } });
  admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
  return t.agents[0]!.id;
}

describe('guardrails through the admin API', () => {
  it('sets the global pause and an agent\'s own, within bounds', async () => {
    const id = await start();
    expect((await as('GET', '/admin/v1/state')).body.settings.pause_ms).toBe(0); // the suite's CHATBRIDGE_PAUSE_MS
    expect((await as('PATCH', '/admin/v1/settings', { pause_ms: 20_000 })).body.settings.pause_ms).toBe(20_000);
    for (const bad of [-1, 3_600_001, 1.5, '20s']) expect((await as('PATCH', '/admin/v1/settings', { pause_ms: bad })).status, String(bad)).toBe(400);

    const own = await as('PATCH', `/admin/v1/agents/${id}`, { pause_ms: 5_000 });
    expect(own.body).toMatchObject({ pause_ms: 5_000, pause_until: null });
    expect((await as('PATCH', `/admin/v1/agents/${id}`, { pause_ms: null })).body.pause_ms).toBeNull();
    expect((await as('PATCH', `/admin/v1/agents/${id}`, { pause_ms: -5 })).status).toBe(400);

    // After a job the agent pauses (20 s plus up to 10 s) and says until when.
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'hello' } })).status).toBe(200);
    const agent = (await as('GET', '/admin/v1/state')).body.agents[0];
    expect(agent.state).toBe('idle');
    const left = Date.parse(agent.pause_until) - Date.now();
    expect(left).toBeGreaterThan(15_000);
    expect(left).toBeLessThanOrEqual(30_000);
    // No job can start now on it: wait:false without a callback is refused, as for a busy agent.
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'again', wait: false } })).body.error.code).toBe('NO_AGENT_AVAILABLE');
  });

  it('takes a proxy it can use, refuses others with a reason, and never shows nor logs its password', async () => {
    const id = await start();
    const refused = await as('PATCH', `/admin/v1/agents/${id}`, { proxy: 'socks5://me:hunter22@10.0.0.2:1080' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'proxy' } });
    expect(refused.body.error.message).toMatch(/SOCKS5/);
    expect(JSON.stringify(refused.body)).not.toContain('hunter22');
    for (const bad of ['ftp://h:21', 'http://h', 'http://h:8080/x', 'x'.repeat(3000)]) {
      expect((await as('PATCH', `/admin/v1/agents/${id}`, { proxy: bad })).status, bad.slice(0, 20)).toBe(400);
    }

    const set = await as('PATCH', `/admin/v1/agents/${id}`, { proxy: 'http://alice:hunter22@proxy.example:3128' });
    expect(set.status).toBe(200);
    expect(set.body.proxy).toBe('http://a…:••••@proxy.example:3128');
    expect(t.driver.agents.get(id)!.proxy).toBe('http://alice:hunter22@proxy.example:3128');
    const everything = JSON.stringify([(await as('GET', '/admin/v1/state')).body, (await as('GET', '/admin/v1/logs')).body]);
    expect(everything).toContain('proxy.example:3128');
    expect(everything).not.toContain('hunter22');
    expect(everything).not.toContain('alice');

    expect((await as('PATCH', `/admin/v1/agents/${id}`, { proxy: null })).body.proxy).toBeNull();
    expect((await as('PATCH', `/admin/v1/agents/${id}`, { proxy: 'socks5://10.0.0.2:1080' })).body.proxy).toBe('socks5://10.0.0.2:1080');
    expect((await as('PATCH', `/admin/v1/agents/${id}`, { proxy: '  ' })).body.proxy).toBeNull();
  });
});
