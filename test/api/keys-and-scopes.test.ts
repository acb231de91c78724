/**
 * Who may call: 401 UNAUTHORIZED for a missing, malformed, unknown, revoked or expired key;
 * 403 FORBIDDEN for a key without the route's scope (decisions.md "Accounts, keys, scopes");
 * only a key's hash is stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';

let t: TestService;
afterEach(async () => t?.stop());
const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

describe('API keys and their scopes', () => {
  it('answers 401 for a missing, malformed, unknown, revoked or expired key', async () => {
    const clock = new ManualClock();
    t = await startTestService({ listen: false, clock });
    const expiring = await t.createKey(['completions:read'], clock.now() + 1_000);
    const revoked = await t.createKey(['completions:read']);
    const revokedId = (t.driver.keys.authenticate(revoked) as { ok: true; key: { id: string } }).key.id;
    await t.driver.keys.revoke(revokedId);
    clock.advance(1_000);
    for (const key of [null, 'nope', `cb_${'x'.repeat(40)}`, revoked, expiring]) {
      const r = await t.api('GET', '/v1/status', { key });
      expect(r.status, String(key)).toBe(401);
      expect(r.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await t.api('GET', '/v1/status', { headers: { authorization: `Basic ${t.key}` }, key: null })).status).toBe(401);
  });

  it('enforces completions:read and completions:write', async () => {
    t = await startTestService({ listen: false });
    const reader = await t.createKey(['completions:read']);
    const writer = await t.createKey(['completions:write']);
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, key: writer });
    expect(sub.status).toBe(202);
    const id = sub.body.id;
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, key: reader })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/completions/${id}`, { key: reader })).body.error.code).toBe('FORBIDDEN');
    expect((await t.api('POST', '/v1/chat/completions', { body: { model: 'service/auto', messages: [] }, key: reader })).status).toBe(403);
    expect((await t.api('GET', `/v1/completions/${id}`, { key: writer })).status).toBe(403);
    expect((await t.api('GET', '/v1/status', { key: writer })).status).toBe(403);
    expect((await t.api('GET', '/v1/models', { key: writer })).status).toBe(403);
    expect((await t.api('GET', `/v1/completions/${id}`, { key: reader })).status).toBe(200);
    expect((await t.api('DELETE', `/v1/completions/${id}`, { key: writer })).status).toBe(200);
  });

  // That the stored row holds the hash and no part of the secret is the key store contract's
  // check on each engine (test/store/key-store-contract.ts); here, what the service shows of a key.
  it('gives a key as cb_ and 40 characters, and shows no part of it again', async () => {
    t = await startTestService({ listen: false });
    const keys = t.driver.keys.list();
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(t.key.slice(7));
    expect(t.key).toMatch(/^cb_[0-9A-Za-z]{40}$/);
  });
});
