/**
 * DNS rebinding: a page of another site that resolves its name to 127.0.0.1 reaches the API
 * with its own name in the Host header. Every endpoint answers 403 FORBIDDEN to a Host that is
 * not localhost or an IP literal, and serves the ones that are. (An empty Host, which inject
 * cannot send, is malformed-http.test.ts's, on a raw socket.)
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../main/core/loopback.js';
import { JSON_TYPE } from '../support/hostile-values.js';
import { hostileService, type Case } from '../support/request-cases.js';

describe('the Host header', () => {
  const s = hostileService();

  it('a Host that is not localhost or an IP literal gets 403 on every endpoint', async () => {
    const badHosts = [
      'evil.com', 'evil.com:80', `evil.com:${DEFAULT_PORT}`, 'localhost.evil.com', 'localhost.', 'evil.localhost', '127.0.0.1.nip.io',
      'localhost:80:80', 'user@localhost', '0x7f.0.0.1', ' ', 'a'.repeat(2_000), 'localhost evil.com', '[::1].evil.com', '[evil.com]',
      '[::1]evil.com', 'xn--lcalhost-9za', '127.0.0.1/evil',
    ];
    const goodHosts = ['localhost', `localhost:${DEFAULT_PORT}`, '127.0.0.1', `127.0.0.1:${DEFAULT_PORT}`, '[::1]', `[::1]:${DEFAULT_PORT}`];
    const targets: { method: string; path: string; body?: string }[] = [
      { method: 'GET', path: '/v1/status' },
      { method: 'GET', path: '/v1/models' },
      { method: 'GET', path: '/v1/openapi.json' },
      { method: 'GET', path: '/v1/completions/job_nope' },
      { method: 'DELETE', path: '/v1/completions/job_nope' },
      { method: 'POST', path: '/v1/completions', body: '{}' },
      { method: 'POST', path: '/v1/chat/completions', body: '{}' },
      { method: 'GET', path: '/nowhere' },
    ];
    const cases: Case[] = [];
    for (const target of targets) {
      const headers = target.body ? JSON_TYPE : undefined;
      for (const host of badHosts) {
        cases.push({ name: `host ${JSON.stringify(host.slice(0, 30))}`, ...target, headers, host, expect: { status: [403], code: ['FORBIDDEN'] } });
      }
      for (const host of goodHosts) {
        cases.push({ name: `host ${host}`, ...target, headers, host, expect: { status: [200, 400, 404] } });
      }
    }
    await s.expectNoProblems(cases);
  }, 60_000);

  it('serves /v1/status to a good Host with a good key, and refuses a foreign one with the same key', async () => {
    const hostStatus = async (host: string) =>
      (await s.t.service.app.inject({ url: '/v1/status', headers: { host, authorization: `Bearer ${s.t.key}` } })).statusCode;
    expect(await hostStatus('evil.example:80')).toBe(403);
    expect(await hostStatus('localhost.evil.example')).toBe(403);
    expect(await hostStatus(`localhost:${DEFAULT_PORT}`)).toBe(200);
    expect(await hostStatus(`127.0.0.1:${DEFAULT_PORT}`)).toBe(200);
  });
});
