/**
 * POST /v1/completions, one wrong field at a time: every field with values of every JSON
 * type, its bounds, random numbers classified by the contract's ranges (api.md, decisions.md),
 * fields the request does not have, and several wrong fields at once. Generated from a seeded
 * PRNG, so every run sends the same requests; every answer is held to the contract's rules
 * (test/support/contract-answers.ts).
 */
import { describe, expect, it } from 'vitest';
import { hasVisibleText } from '../../main/core/text.js';
import type { Expect } from '../support/contract-answers.js';
import { bad, deepArray, deepObject, HOOK, isBool, isNumber, isObject, isString, JUNK, MAX_PROMPT, PROVIDERS, validSubmission } from '../support/hostile-values.js';
import { expectStillServing, hostileService, post, type Case } from '../support/request-cases.js';
import { Rng } from '../support/seeded-rng.js';

describe('POST /v1/completions, field by field', () => {
  const s = hostileService();

  it('one wrong field at a time, every field, every JSON type', async () => {
    const rng = new Rng(0xc0ffee);
    let seq = 0;
    const baseBody = (): Record<string, unknown> => ({ prompt: `hostile ${seq++}`, wait: false, callback_url: HOOK });
    const cases: Case[] = [];
    const withField = (name: string, field: string, value: unknown, expect: Expect | 'valid') => {
      const body = { ...baseBody(), [field]: value };
      cases.push(post('/v1/completions', `${name} ${field}=${JSON.stringify(value)?.slice(0, 40)}`, JSON.stringify(body), expect === 'valid' ? validSubmission(body) : expect));
    };
    const badAll = (field: string, values: unknown[], expectField = field) => {
      for (const v of values) withField('bad', field, v, bad(expectField));
    };
    const goodAll = (field: string, values: unknown[]) => {
      for (const v of values) withField('good', field, v, 'valid');
    };

    // prompt
    // A prompt with nothing visible is the caller's mistake, never one an agent should try.
    badAll('prompt', [...JUNK.filter((v) => !isString(v)), '', ' ', '\t\n', '\u200b\u00ad', '\u0000']);
    withField('too long', 'prompt', 'x'.repeat(MAX_PROMPT + 1), bad('prompt', 413));
    withField('too long', 'prompt', 'é'.repeat(MAX_PROMPT + 1), bad('prompt', 413));
    withField('far too long', 'prompt', 'y'.repeat(MAX_PROMPT * 3), bad('prompt', 413));
    goodAll('prompt', [
      'a', ' a\t\n', 'ünïcödé ✓', '日本語のテキスト', 'emoji 🎉🔥👍🏽', 'rtl \u202eevil', 'zero\u200bwidth', 'nul \u0000 byte',
      'lone \ud800 surrogate', '<script>alert(1)</script>', "'; DROP TABLE jobs; --", '${7*7} {{7*7}} %s %n', 'x'.repeat(MAX_PROMPT),
      'é'.repeat(MAX_PROMPT),
    ]);
    for (let i = 0; i < 60; i++) {
      const prompt = rng.text(rng.int(1, 300));
      withField(hasVisibleText(prompt) ? 'good' : 'bad', 'prompt', prompt, hasVisibleText(prompt) ? 'valid' : bad('prompt'));
    }

    // provider
    badAll('provider', [
      ...JUNK.filter((v) => v !== null),
      'CHATGPT', 'chatgpt ', ' claude', 'gpt-4', 'auto', 'service/chatgpt', 'openai', 'chat\u0000gpt', 'сhatgpt', 'null',
    ]);
    goodAll('provider', [null, ...PROVIDERS]);

    // agent_id
    badAll('agent_id', [
      ...JUNK.filter((v) => v !== null),
      'agt_', 'agt_doesnotexist', 'a'.repeat(65), 'a'.repeat(10_000), s.agentIds[0]!.toUpperCase(), `${s.agentIds[0]} `, `${s.agentIds[0]}\u0000`,
    ]);
    goodAll('agent_id', [null, ...s.agentIds]);

    // wait
    badAll('wait', [...JUNK.filter((v) => !isBool(v)), 'false', 0, 1]);
    goodAll('wait', [false, true]);

    // timeout_ms, deadline_ms, priority: wrong types, bounds, and random numbers classified by the contract's ranges
    const ranges: [string, number, number][] = [
      ['timeout_ms', 5_000, 600_000],
      ['deadline_ms', 10_000, 3_600_000],
      ['priority', -10, 100],
    ];
    for (const [field, lo, hi] of ranges) {
      badAll(field, [...JUNK.filter((v) => !isNumber(v)), String(lo), lo - 1, hi + 1, lo + 0.5, -(2 ** 31), 2 ** 31, 1e21, -1e21]);
      goodAll(field, [lo, hi, Math.floor((lo + hi) / 2)]);
      for (let i = 0; i < 25; i++) {
        const v = rng.chance(0.5) ? rng.int(lo - (hi - lo), hi + (hi - lo)) : rng.int(lo, hi) + (rng.chance(0.3) ? 0.25 : 0);
        const ok = Number.isInteger(v) && v >= lo && v <= hi;
        withField(ok ? 'good' : 'bad', field, v, ok ? 'valid' : bad(field));
      }
    }
    // Numbers written in ways JSON allows but JS would not print.
    const num = (field: string, literal: string, expect: Expect | 'valid') => {
      const text = JSON.stringify(baseBody()).slice(0, -1) + `,"${field}":${literal}}`;
      cases.push(post('/v1/completions', `literal ${field}=${literal}`, text, expect === 'valid' ? validSubmission({ wait: false, callback_url: HOOK }) : expect));
    };
    num('timeout_ms', '5000.0', 'valid');
    num('timeout_ms', '5E3', 'valid');
    num('priority', '-0', 'valid');
    num('priority', '1e400', bad('priority'));
    num('priority', '-1e400', bad('priority'));
    num('deadline_ms', '1' + '0'.repeat(400), bad('deadline_ms'));
    num('deadline_ms', '10000.000000000000001', 'valid');

    // mode and conversation_ref
    badAll('mode', [...JUNK.filter((v) => !isString(v)), '', 'NEW', 'New', 'old', 'continue ', ' new', 'continue\u0000']);
    withField('bad', 'mode', 'continue', bad('conversation_ref'));
    goodAll('mode', ['new']);
    badAll('conversation_ref', [...JUNK.filter((v) => v !== null), 'cv_x', 'x'.repeat(2_049)]);
    goodAll('conversation_ref', [null]);
    for (const ref of ['cv_doesnotexist', 'x'.repeat(2_049), '', 42, ['cv_x']]) {
      const body = { ...baseBody(), mode: 'continue', conversation_ref: ref };
      cases.push(post('/v1/completions', `continue with ref ${JSON.stringify(ref).slice(0, 20)}`, JSON.stringify(body), bad('conversation_ref')));
    }

    // callback_url
    badAll('callback_url', [
      ...JUNK.filter((v) => v !== null),
      'http://127.0.0.1:9/hook', 'HTTP://127.0.0.1:9/hook', 'ftp://127.0.0.1/x', 'ws://127.0.0.1/x', 'javascript:alert(1)',
      'data:text/plain,hi', 'file:///etc/passwd', '//127.0.0.1:9/hook', '/hook', 'not a url', 'https://', 'https://user:pw@127.0.0.1:9/hook',
      'https://user@127.0.0.1:9/hook', `https://${'a'.repeat(2_049)}`, `https://127.0.0.1:9/${'p'.repeat(2_100)}`,
    ]);
    goodAll('callback_url', [HOOK, 'https://[::1]:9/hook', 'HTTPS://LOCALHOST:9/h?q=é#frag', `https://127.0.0.1:9/${'p'.repeat(2_000)}`, null]);

    // metadata: type, 4 096 bytes, nesting, hostile keys
    badAll('metadata', [...JUNK.filter((v) => !isObject(v)), { big: 'x'.repeat(4_100) }, { many: Array.from({ length: 1_500 }, (_, i) => i) }]);
    goodAll('metadata', [
      {}, { a: 1 }, { big: 'x'.repeat(4_000) }, { constructor: 'x', toString: 1, hasOwnProperty: null, prototype: {}, valueOf: [] },
      { ключ: 'значение', '🔑': '🎉', '': '', 'a.b': { 'c/d': ['~0', '~1'] } }, { nested: { a: [1, [2, [3, { b: null }]]] } },
    ]);
    // Nested text, written by hand so the nesting is not built by JSON.stringify.
    const meta = (name: string, metadataText: string, expect: Expect | 'valid') => {
      const text = JSON.stringify(baseBody()).slice(0, -1) + `,"metadata":${metadataText}}`;
      cases.push(post('/v1/completions', `metadata ${name}`, text, expect === 'valid' ? validSubmission({ wait: false, callback_url: HOOK }) : expect));
    };
    meta('nested arrays within 4 096 bytes', `{"d":${deepArray(1_000)}}`, 'valid');
    meta('nested objects within 4 096 bytes', deepObject(500), 'valid');
    // Over 4 096 bytes, so INVALID_REQUEST on metadata, however deep it is.
    // (Anything nested deeper than 2 048 levels is over 4 096 bytes: each level costs two.)
    meta('deep arrays over 4 096 bytes (5 000 levels)', `{"d":${deepArray(5_000)}}`, bad(['metadata', 'body']));
    meta('deep arrays over 4 096 bytes (50 000 levels)', `{"d":${deepArray(50_000)}}`, bad(['metadata', 'body']));
    meta('deep objects over 4 096 bytes (20 000 levels)', deepObject(20_000), bad(['metadata', 'body']));

    // Fields that are not in the request.
    for (const name of ['foo', 'Prompt', 'PROMPT', 'prompt ', 'model', 'messages', 'stream', 'id', 'status', 'toString', 'hasOwnProperty', 'constructor', 'prototype', 'a/b', 'a~b', 'ключ', '🎉', ' ', '\u0000', 'x'.repeat(1_000)]) {
      const body = { ...baseBody(), [name]: 1 };
      cases.push(post('/v1/completions', `extra field ${JSON.stringify(name).slice(0, 20)}`, JSON.stringify(body), bad(name)));
    }
    cases.push(post('/v1/completions', 'extra field ""', JSON.stringify({ ...baseBody(), '': 1 }), bad(['', 'body'])));
    // A missing prompt.
    cases.push(post('/v1/completions', 'no prompt', JSON.stringify({ wait: false, callback_url: HOOK }), bad('prompt')));
    cases.push(post('/v1/completions', 'empty object', '{}', bad('prompt')));

    // Several wrong fields at once: INVALID_REQUEST naming one of them (413 if the prompt is too long).
    const faults: Record<string, { value: unknown; field: string; status?: number }[]> = {
      prompt: [{ value: 7, field: 'prompt' }, { value: '', field: 'prompt' }, { value: 'z'.repeat(MAX_PROMPT + 1), field: 'prompt', status: 413 }],
      provider: [{ value: 'gpt', field: 'provider' }, { value: [], field: 'provider' }],
      agent_id: [{ value: 'agt_nobody', field: 'agent_id' }, { value: 5, field: 'agent_id' }],
      wait: [{ value: 'no', field: 'wait' }, { value: null, field: 'wait' }],
      timeout_ms: [{ value: 1, field: 'timeout_ms' }, { value: '5000', field: 'timeout_ms' }],
      deadline_ms: [{ value: 9_999, field: 'deadline_ms' }, { value: 3_600_001, field: 'deadline_ms' }],
      priority: [{ value: 101, field: 'priority' }, { value: 1.5, field: 'priority' }],
      mode: [{ value: 'continue', field: 'conversation_ref' }, { value: 'x', field: 'mode' }],
      conversation_ref: [{ value: 'cv_x', field: 'conversation_ref' }, { value: {}, field: 'conversation_ref' }],
      callback_url: [{ value: 'http://127.0.0.1/x', field: 'callback_url' }, { value: 1, field: 'callback_url' }],
      metadata: [{ value: [], field: 'metadata' }, { value: 'm', field: 'metadata' }, { value: { x: 'y'.repeat(5_000) }, field: 'metadata' }],
      zzz_extra: [{ value: true, field: 'zzz_extra' }],
    };
    const faultFields = Object.keys(faults);
    for (let i = 0; i < 500; i++) {
      const n = rng.int(2, 4);
      const chosen = new Set<string>();
      while (chosen.size < n) chosen.add(rng.pick(faultFields));
      const body: Record<string, unknown> = baseBody();
      const fields: string[] = [];
      let tooLong = false;
      for (const f of chosen) {
        const fault = rng.pick(faults[f]!);
        body[f] = fault.value;
        fields.push(fault.field);
        if (fault.status === 413) tooLong = true;
      }
      const expect: Expect = {
        status: tooLong ? [400, 413] : [400],
        code: tooLong ? ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE'] : ['INVALID_REQUEST'],
        field: fields,
      };
      cases.push(post('/v1/completions', `faults ${[...chosen].join('+')}`, JSON.stringify(body), expect));
    }

    expect(cases.length).toBeGreaterThan(1_000);
    await s.expectNoProblems(cases);
  }, 60_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
