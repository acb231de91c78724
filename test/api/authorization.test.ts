/**
 * Authorization on every endpoint: missing, malformed, unknown, revoked, expired and wrongly
 * scoped keys get 401 UNAUTHORIZED or 403 FORBIDDEN in the envelope (api.md
 * "Authentication", decisions.md "Accounts, keys, scopes"); the OpenAPI document is public;
 * a key is checked before a body is read.
 */
import { describe, expect, it } from 'vitest';
import { HOOK, JSON_TYPE, MAX_BODY } from '../support/hostile-values.js';
import { hostileService, post, type Case } from '../support/request-cases.js';
import { Rng } from '../support/seeded-rng.js';

describe('API keys on every endpoint', () => {
  const s = hostileService();

  it('missing, malformed, unknown, revoked, expired and wrongly scoped keys, on every endpoint', async () => {
    const rng = new Rng(0x4a7);
    const readOnly = await s.t.createKey(['completions:read']);
    const writeOnly = await s.t.createKey(['completions:write']);
    const noScopes = await s.t.createKey([]);
    const revoked = await s.t.createKey(['completions:read', 'completions:write']);
    const auth = s.t.driver.keys.authenticate(revoked);
    if (!auth.ok) throw new Error('the key to revoke does not authenticate');
    expect(await s.t.driver.keys.revoke(auth.key.id)).toBe(true);
    const expired = await s.t.createKey(['completions:read', 'completions:write'], Date.now() - 1_000);
    const unknownKey = `cb_${rng.text(40, [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'])}`;
    const good = s.keys[0]!;

    const endpoints: { method: string; path: string; body?: string; scope: 'read' | 'write' }[] = [
      { method: 'POST', path: '/v1/completions', body: '{"prompt":', scope: 'write' },
      { method: 'POST', path: '/v1/completions', body: JSON.stringify({ prompt: 'auth', wait: false, callback_url: HOOK }), scope: 'write' },
      { method: 'GET', path: '/v1/completions/job_nope', scope: 'read' },
      { method: 'DELETE', path: '/v1/completions/job_nope', scope: 'write' },
      { method: 'POST', path: '/v1/chat/completions', body: '[]', scope: 'write' },
      { method: 'GET', path: '/v1/models', scope: 'read' },
      { method: 'GET', path: '/v1/status', scope: 'read' },
    ];
    const unauthorized: (string | null)[] = [
      null, '', 'Bearer', 'Bearer ', 'bearer', `Basic ${Buffer.from(`user:${good}`).toString('base64')}`, `Token ${good}`, good,
      `Bearer ${good.slice(0, -1)}`, `Bearer ${good}x`, `Bearer ${good} ${good}`, `Bearer ${good},`, `Bearer "${good}"`, `Bearer ${unknownKey}`,
      `Bearer ${revoked}`, `Bearer ${expired}`, `Bearer cb_`, `Bearer ${'a'.repeat(8_000)}`, `Bearer cb_${'A'.repeat(39)}!`,
      `Bearer ${good.toUpperCase()}`, `Bearer\t${good}`, 'Bearer null', 'Bearer undefined', 'Bearer admin',
      `Bearer ${Buffer.from(good).toString('base64')}`, `Bearer%20${good}`,
    ];
    const cases: Case[] = [];
    for (const e of endpoints) {
      const headers = e.body !== undefined ? JSON_TYPE : undefined;
      for (const a of unauthorized) {
        cases.push({ name: `auth ${JSON.stringify(a)?.slice(0, 30)}`, method: e.method, path: e.path, headers, body: e.body, auth: a, expect: { status: [401], code: ['UNAUTHORIZED'] } });
      }
      // A key without the route's scope.
      const wrong = e.scope === 'read' ? [writeOnly, noScopes] : [readOnly, noScopes];
      for (const k of wrong) cases.push({ name: 'wrong scope', method: e.method, path: e.path, headers, body: e.body, auth: `Bearer ${k}`, expect: { status: [403], code: ['FORBIDDEN'] } });
      // The scheme is case-insensitive; a good key with the right scope passes authentication.
      const right = e.scope === 'read' ? readOnly : writeOnly;
      cases.push({ name: 'right scope, lower-case scheme', method: e.method, path: e.path, headers, body: e.body, auth: `bearer ${right}`, expect: { status: [200, 202, 400, 404] } });
    }
    // The OpenAPI document is public; a bad key does not matter there.
    for (const a of [null, 'Bearer nope', `Bearer ${revoked}`]) {
      cases.push({ name: 'openapi', method: 'GET', path: '/v1/openapi.json', auth: a, expect: { status: [200], check: (doc) => (doc?.openapi?.startsWith('3.') && doc.paths?.['/v1/completions'] ? undefined : 'not the OpenAPI document') } });
    }
    // A large body with no key: the key is checked, the body never matters.
    cases.push(post('/v1/completions', 'no key, 2 MiB', 'x'.repeat(2 * MAX_BODY), { status: [401, 413], code: ['UNAUTHORIZED', 'PAYLOAD_TOO_LARGE'] }));
    cases[cases.length - 1]!.auth = null;

    await s.expectNoProblems(cases);
  }, 60_000);
});
