/**
 * Request targets as a client may write them: job ids in odd encodings, very long or
 * case-changed, bad queries on GET, bodies on GET and DELETE, and unknown routes and methods,
 * which answer 404 in the envelope, key or no key. The path as written is the subject (a URL
 * parser would resolve `%2e%2e` and `.` before the server saw them), so these requests travel
 * on a socket, byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { bad, HOOK, JSON_TYPE, notFound } from '../support/hostile-values.js';
import { expectStillServing, hostileService, type Case } from '../support/request-cases.js';
import { Rng } from '../support/seeded-rng.js';

describe('request targets', () => {
  const s = hostileService('socket');

  it('GET/DELETE /v1/completions/{id}: odd encodings, very long ids, bad queries; unknown routes and methods', async () => {
    const rng = new Rng(0x1d);
    const cases: Case[] = [];
    // A real job to read and cancel.
    const created = await s.t.api('POST', '/v1/completions', { body: { prompt: 'a real job', wait: false, callback_url: HOOK, metadata: { tag: 'real' } } });
    expect(created.status).toBe(202);
    const realId = created.body.id as string;

    const wellFormedUnknown = [
      'job_00000000000000000000000000', `job_${rng.text(24, [...'0123456789abcdefXYZ'])}`, 'x', '1', '0', '-1', 'a'.repeat(64), 'null', 'undefined', 'true',
      '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', '%C3%BCn%C3%AF', '%E2%98%83', '%F0%9F%8E%89', '%20', '%09', '%0A', '%0D%0A',
      '%00', '%2F', '%2Fetc%2Fpasswd', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%252F', "'%20OR%201=1--", '%22%3B%20DROP%20TABLE%20jobs%3B--', '%3Cscript%3E',
      'job_%00', `${realId.toLowerCase()}`, `${realId}%20`, `%20${realId}`, `${realId}%00`, encodeURIComponent(`${realId}/`), '*', '%2A', '.', '..',
    ];
    const tooLong = ['a'.repeat(65), 'a'.repeat(1_000), 'b'.repeat(8_000), `${realId}${'0'.repeat(100)}`, '%C3%BC'.repeat(40)];
    const badEncoding = ['%', '%Z', '%ZZ', '%%', '%C0%AF', '%E0%80', '%FF', '%uD800', '%ED%A0%80', 'a%', 'job_%G0'];
    for (const method of ['GET', 'DELETE']) {
      for (const id of wellFormedUnknown) cases.push({ name: `id ${id}`, method, path: `/v1/completions/${id}`, expect: notFound });
      // (The router refuses a path parameter over 100 characters as a malformed URL, hence 'url'.)
      for (const id of tooLong) cases.push({ name: `long id ${id.length}`, method, path: `/v1/completions/${id}`, expect: { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'], field: ['id', 'url'] } });
      for (const id of badEncoding) cases.push({ name: `bad encoding ${id}`, method, path: `/v1/completions/${id}`, expect: { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'] } });
      for (let i = 0; i < 40; i++) {
        const id = encodeURIComponent(rng.text(rng.int(1, 30)));
        cases.push({ name: `random id ${id.slice(0, 30)}`, method, path: `/v1/completions/${id}`, expect: { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'] } });
      }
    }
    // Queries on GET.
    for (const q of ['wait=true', 'wait=false', '']) cases.push({ name: `query ${q}`, method: 'GET', path: `/v1/completions/job_nope?${q}`, expect: notFound });
    for (const q of ['wait=1', 'wait=', 'wait=TRUE', 'wait=yes', 'wait=true&wait=true', 'wait=true&wait=false', 'wait[]=true', 'wait=%ZZ']) {
      cases.push({ name: `query ${q}`, method: 'GET', path: `/v1/completions/job_nope?${q}`, expect: bad(['wait', 'wait[]', 'url', 'querystring']) });
    }
    for (const q of ['foo=bar', '__proto__=1', 'constructor=1', 'a[b]=c', `${'q'.repeat(3_000)}=1`]) {
      cases.push({ name: `query ${q.slice(0, 20)}`, method: 'GET', path: `/v1/completions/job_nope?${q}`, expect: { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'] } });
    }
    // The real job: readable with every harmless query, and its id is case-sensitive.
    cases.push({ name: 'real job', method: 'GET', path: `/v1/completions/${realId}`, expect: { status: [200], check: (job) => (job.id === realId && job.metadata?.tag === 'real' ? undefined : 'not the job') } });
    cases.push({ name: 'real job, wait=false', method: 'GET', path: `/v1/completions/${realId}?wait=false`, expect: { status: [200], check: (job) => (job.id === realId ? undefined : 'not the job') } });
    // DELETE with a body: a malformed one is refused or ignored, never a 5xx.
    cases.push({ name: 'DELETE with junk JSON', method: 'DELETE', path: '/v1/completions/job_nope', headers: JSON_TYPE, body: '{bad', expect: { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'] } });
    cases.push({ name: 'DELETE with text body', method: 'DELETE', path: '/v1/completions/job_nope', headers: { 'content-type': 'text/plain' }, body: 'x', expect: { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'] } });
    cases.push({ name: 'GET with a junk body', method: 'GET', path: '/v1/status', headers: JSON_TYPE, body: '{bad', expect: { status: [200, 400], code: ['INVALID_REQUEST'] } });

    // Unknown routes and methods: 404 in the envelope, key or no key.
    // GET / is the dashboard's page.
    const routes = new Set(['GET /', 'GET /v1/status', 'GET /v1/models', 'GET /v1/openapi.json', 'POST /v1/completions', 'POST /v1/chat/completions']);
    const paths = [
      '/', '/v1', '/v1/', '/v2/completions', '/v1/completion', '/v1/completions/a/b', '/V1/STATUS', '/v1/Status', '/v1/status/', '//v1/status',
      '/v1/status/extra', '/v1/models/service%2Fauto', '/v1/models/service/auto', '/v1/chat', '/v1/chat/completions/x', '/v1/chat/completions/',
      '/.env', '/admin', '/v1/openapi.yaml', '/favicon.ico', '/v1/%2e%2e/v1/status', '/v1/status%00', '/%2e%2e/%2e%2e/etc/passwd', '/v1/jobs',
      `/${'z'.repeat(5_000)}`, '/v1/completions', '/v1/status', '/v1/models', '/v1/openapi.json', '/v1/chat/completions',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH']) {
        if (routes.has(`${method} ${path}`)) continue;
        const body = method === 'POST' || method === 'PUT' || method === 'PATCH' ? '{}' : undefined;
        const odd = /%|\/\/|Z{100}|z{100}/i.test(path);
        cases.push({
          name: `route ${method} ${path.slice(0, 40)}`,
          method,
          path,
          headers: body ? JSON_TYPE : undefined,
          body,
          auth: rng.chance(0.5) ? null : undefined,
          expect: odd ? { status: [400, 404], code: ['INVALID_REQUEST', 'NOT_FOUND'] } : notFound,
        });
      }
    }
    // HEAD carries no body, but the status and the request id still hold.
    cases.push({ name: 'HEAD status', method: 'HEAD', path: '/v1/status', expect: { status: [200] } });
    cases.push({ name: 'HEAD nowhere', method: 'HEAD', path: '/nowhere', expect: { status: [404] } });
    cases.push({ name: 'HEAD status, no key', method: 'HEAD', path: '/v1/status', auth: null, expect: { status: [401] } });

    await s.expectNoProblems(cases);
    // The real job was never touched by the hostile reads and cancels around it.
    const job = await s.t.api('GET', `/v1/completions/${realId}`);
    expect(job.status).toBe(200);
    expect(job.body.metadata).toEqual({ tag: 'real' });
  }, 60_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
