/**
 * What POST /v1/completions and /v1/chat/completions accept as a body: JSON's content type
 * only (a form or text/plain would let a cross-site page post), an empty or missing body, an
 * undecoded Content-Encoding, and the 100 000-character prompt (api.md "Limits"). Bodies over
 * 1 MiB, as they travel, are body-limits.test.ts's.
 */
import { describe, it } from 'vitest';
import { acceptedCheck, bad, HOOK, JSON_TYPE, MAX_PROMPT, validSubmission } from '../support/hostile-values.js';
import { expectStillServing, hostileService, post, type Case } from '../support/request-cases.js';

describe('request bodies and their content types', () => {
  const s = hostileService();

  it('JSON only, empty bodies, an undecoded encoding and the 100 000-character prompt', async () => {
    const valid = JSON.stringify({ prompt: 'ct', wait: false, callback_url: HOOK });
    const accepted = validSubmission({ wait: false, callback_url: HOOK });
    const cases: Case[] = [];
    const ctBad = bad(['content-type', 'body']);
    for (const ct of ['text/plain', 'text/html', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml',
      'application/octet-stream', 'application/jsonp', 'application/json-seq', 'json', 'application', ';', '*/*', 'image/png', 'text/json']) {
      cases.push(post('/v1/completions', `content-type ${ct}`, valid, ctBad, { 'content-type': ct }));
      cases.push(post('/v1/chat/completions', `content-type ${ct}`, JSON.stringify({ model: 'service/auto', messages: [{ role: 'user', content: 'ct' }] }), ctBad, { 'content-type': ct }));
    }
    cases.push(post('/v1/completions', 'no content-type', valid, ctBad, {}));
    for (const ct of ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'Application/Json; Charset=UTF-8']) {
      cases.push(post('/v1/completions', `content-type ${ct}`, valid, accepted, { 'content-type': ct }));
    }
    // Odd parameters: reading the UTF-8 body anyway or refusing it are both fine, a 5xx is not.
    for (const ct of ['application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json;;', 'application/json, text/plain', 'application/json; boundary="x']) {
      cases.push(post('/v1/completions', `content-type ${ct}`, valid, { status: [202, 400], code: ['INVALID_REQUEST'], check: acceptedCheck }, { 'content-type': ct }));
    }
    cases.push(post('/v1/completions', 'empty JSON body', '', bad('body')));
    cases.push(post('/v1/completions', 'whitespace JSON body', '  \n ', bad('body')));
    cases.push({ name: 'no body at all', method: 'POST', path: '/v1/completions', expect: bad('body') });
    cases.push({ name: 'no body, JSON type', method: 'POST', path: '/v1/completions', headers: JSON_TYPE, expect: bad('body') });
    cases.push({ name: 'chat: no body at all', method: 'POST', path: '/v1/chat/completions', expect: bad('body') });
    // A Content-Encoding the server does not decode: reading the body as it is, or refusing it, are both fine.
    cases.push(post('/v1/completions', 'gzip-encoded claim', valid, { status: [202, 400], code: ['INVALID_REQUEST'], check: acceptedCheck }, { ...JSON_TYPE, 'content-encoding': 'gzip' }));

    // The prompt limit: 100 000 characters is fine, one more is 413 on prompt.
    const withPrompt = (p: string) => JSON.stringify({ prompt: p, wait: false, callback_url: HOOK });
    cases.push(post('/v1/completions', 'prompt of 100 000', withPrompt('p'.repeat(MAX_PROMPT)), accepted));
    cases.push(post('/v1/completions', 'prompt of 100 001', withPrompt('p'.repeat(MAX_PROMPT + 1)), bad('prompt', 413)));
    cases.push(post('/v1/completions', 'prompt of 100 001, wait: true', JSON.stringify({ prompt: 'q'.repeat(MAX_PROMPT + 1) }), bad('prompt', 413)));
    cases.push(post('/v1/completions', 'prompt of 100 001 with more wrong fields after it', JSON.stringify({ prompt: 'r'.repeat(MAX_PROMPT + 1), wait: false, callback_url: HOOK, metadata: { ok: 1 } }), bad('prompt', 413)));

    await s.expectNoProblems(cases);
  }, 60_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
