/**
 * /healthz and /readyz for monitors, the server's proof for the command line, and the
 * admin token's rotation as an open dashboard lives it.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serverProof } from '../../main/keys/admin-token.js';
import { startTestService, type TestService } from '../support/harness.js';

let t: TestService | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

const tokenOf = (dataDir: string) => readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();

describe('health', () => {
  it('/healthz answers up without a key; the Host check still applies', async () => {
    t = await startTestService();
    const res = await t.api('GET', '/healthz', { key: null });
    expect(res).toMatchObject({ status: 200, body: { status: 'up' } });
    const port = new URL(t.url).port;
    const status = await new Promise<number>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port, path: '/healthz', headers: { host: 'evil.example' } }, (r) => (r.resume(), resolve(r.statusCode!))).on('error', reject),
    );
    expect(status).toBe(403);
  });

  it('/readyz is 503 "agents" until every enabled agent is attached, and 503 "database" when it cannot write', async () => {
    t = await startTestService();
    t.driver.agents.create('claude', 'claude-1');
    expect(await t.api('GET', '/readyz', { key: null })).toMatchObject({ status: 503, body: { status: 'down', reason: 'agents' } });
    t.driver.attach({ claude: 1 });
    expect(await t.api('GET', '/readyz', { key: null })).toMatchObject({ status: 200, body: { status: 'up' } });
    // When the data dir's database answers false is test/store/sqlite-answers.test.ts's.
    const answers = vi.spyOn(t.service.storage, 'answers').mockResolvedValue(false);
    try {
      expect(await t.api('GET', '/readyz', { key: null })).toMatchObject({ status: 503, body: { status: 'down', reason: 'database' } });
    } finally {
      answers.mockRestore();
    }
  });
});

describe('the server proof', () => {
  it('is the HMAC of a fresh nonce and the server address, keyed by the admin token, asked without the token', async () => {
    t = await startTestService();
    const nonce = 'n'.repeat(32);
    const res = await t.api('GET', `/admin/v1/proof?nonce=${nonce}`, { key: null });
    expect(res.status).toBe(200);
    expect(res.body.proof).toBe(serverProof(tokenOf(t.dataDir), nonce, t.url));
    expect(res.body.proof).not.toBe(serverProof(tokenOf(t.dataDir), nonce, 'http://127.0.0.1:1'));
    expect((await t.api('GET', '/admin/v1/proof?nonce=short', { key: null })).status).toBe(400);
  });
});

describe('admin token rotation', () => {
  it('the old token gets 401 at once, the new one in the data dir works, and an open event stream ends', async () => {
    t = await startTestService();
    const old = tokenOf(t.dataDir);
    const stream = await fetch(`${t.url}/admin/v1/events`, { headers: { authorization: `Bearer ${old}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // the first `state` event
    expect((await t.api('POST', '/admin/v1/admin-token/rotate', { key: old })).status).toBe(204);
    // The stream ends: read until done.
    for (;;) if ((await reader.read()).done) break;
    const fresh = tokenOf(t.dataDir);
    expect(fresh).not.toBe(old);
    expect(fresh).toMatch(/^cba_/);
    expect((await t.api('GET', '/admin/v1/state', { key: old })).status).toBe(401);
    expect((await t.api('GET', '/admin/v1/events', { key: old })).status).toBe(401);
    expect((await t.api('GET', '/admin/v1/state', { key: fresh })).status).toBe(200);
    expect((await t.api('POST', '/admin/v1/admin-token/rotate', { key: t.key })).status).toBe(403);
  });
});
