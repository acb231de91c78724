/**
 * POST /v1/completions with bodies that are not the request: prototype-polluting keys,
 * malformed, truncated and mutated JSON, JSON that is not an object, random junk documents and
 * invalid UTF-8; and metadata with hostile keys, which is stored as data and echoed verbatim.
 * Generated from a seeded PRNG; every answer is held to the contract's rules.
 */
import { describe, expect, it } from 'vitest';
import { acceptedCheck, bad, HOOK, JSON_TYPE, junkJson, validSubmission } from '../support/hostile-values.js';
import { expectStillServing, hostileService, post, type Case } from '../support/request-cases.js';
import { Rng } from '../support/seeded-rng.js';

describe('POST /v1/completions with hostile bodies', () => {
  const s = hostileService();

  it('hostile keys, malformed, truncated and mutated JSON, random junk bodies', async () => {
    const rng = new Rng(0xbadf00d);
    const cases: Case[] = [];
    const validText = () => JSON.stringify({ prompt: `json ${rng.int(0, 1e9)}`, wait: false, callback_url: HOOK, metadata: { k: [1, 'two', null] } });
    const badBody = bad('body');

    // Prototype pollution. Rejecting such a body is fine; accepting it must keep the key as data.
    const protoBodies: [string, string][] = [
      ['top-level __proto__', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","__proto__":{"polluted":true}}`],
      ['top-level constructor.prototype', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","constructor":{"prototype":{"polluted":true}}}`],
      ['metadata __proto__', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","metadata":{"__proto__":{"polluted":true}}}`],
      ['metadata constructor.prototype', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","metadata":{"constructor":{"prototype":{"polluted":true}}}}`],
      ['nested __proto__', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","metadata":{"a":[{"b":{"__proto__":{"polluted":true}}}]}}`],
      ['escaped __proto__', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","metadata":{"\\u005f_proto__":{"polluted":true}}}`],
      ['__proto__ null', `{"prompt":"p","wait":false,"callback_url":"${HOOK}","__proto__":null}`],
    ];
    for (const [name, text] of protoBodies) {
      cases.push(post('/v1/completions', name, text, { status: [202, 400], code: ['INVALID_REQUEST'], field: ['body', 'metadata', '__proto__', 'constructor'], check: acceptedCheck }));
    }

    // Malformed JSON.
    const malformed = [
      '{', '}', '[', '"', '{"prompt"', '{"prompt":}', '{"prompt":"x",}', '{"prompt":"x"}}', '{"prompt":"x"} trailing', '{"prompt":"x"}{"prompt":"y"}',
      "{'prompt':'x'}", '{prompt:"x"}', '{"prompt":"x" "wait":false}', '{"prompt":NaN}', '{"prompt":"x","priority":Infinity}',
      '{"prompt":"x","priority":0x10}', '{"prompt":"x","priority":01}', '{"prompt":"x","priority":.5}', '{"prompt":"x","priority":+1}',
      '{"prompt":"\\x41"}', '{"prompt":"\\u12"}', '{"prompt":"raw \u0001 control"}', '{"prompt":"raw \n newline"}', '{"prompt":"x"/*c*/}',
      '// comment\n{"prompt":"x"}', '{"prompt":undefined}', '{"prompt":"x",,"wait":false}', 'nul\u0000', '\u0000', 'true false', '{"a":[}',
      '{"prompt":"unterminated', '{"prompt":"x"]', '["prompt","x"}', `{"prompt":"x","metadata":${'['.repeat(100)}}`,
      '\ufeff\ufeff{"prompt":"x"}', '{"prompt":"x"}\u0000',
    ];
    for (const text of malformed) cases.push(post('/v1/completions', `malformed ${JSON.stringify(text).slice(0, 30)}`, text, badBody));
    // Valid JSON that is not an object.
    for (const text of ['null', 'true', '0', '-1.5e3', '"prompt"', '[]', '[{"prompt":"x"}]', `[${'1,'.repeat(1_000)}1]`, '""']) {
      cases.push(post('/v1/completions', `not an object ${text.slice(0, 20)}`, text, badBody));
    }
    // Whitespace around a valid body is still JSON.
    cases.push(post('/v1/completions', 'padded', ` \n\t\r${validText()} \n`, validSubmission({ wait: false, callback_url: HOOK })));

    // Every proper prefix of a JSON object is invalid JSON.
    for (let i = 0; i < 150; i++) {
      const text = validText();
      cases.push(post('/v1/completions', 'truncated', text.slice(0, rng.int(1, text.length - 1)), badBody));
    }
    // Random byte mutations: invalid JSON gets 400 on body; whatever still parses must get a 4xx or 2xx.
    const mutants = ['{', '}', '[', ']', '"', ',', ':', '\\', ' ', '\u0000', 'x', '1', '-', 'e', 'n', '\ud83c'];
    for (let i = 0; i < 300; i++) {
      let text = validText();
      for (let m = rng.int(1, 3); m > 0; m--) {
        const at = rng.int(0, text.length - 1);
        const op = rng.int(0, 2);
        const ch = rng.pick(mutants);
        text = op === 0 ? text.slice(0, at) + ch + text.slice(at + 1) : op === 1 ? text.slice(0, at) + ch + text.slice(at) : text.slice(0, at) + text.slice(at + 1);
      }
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      cases.push(post('/v1/completions', `mutated ${JSON.stringify(text).slice(0, 60)}`, text, parses ? { status: [200, 202, 400, 413] } : badBody));
    }
    // Random junk documents (no top-level prompt, so never a valid request).
    for (let i = 0; i < 300; i++) {
      const text = junkJson(rng, rng.int(0, 5));
      cases.push(post('/v1/completions', `junk ${text.slice(0, 40)}`, text, { status: [400], code: ['INVALID_REQUEST'] }));
    }
    // Invalid UTF-8 in the body.
    for (const bytes of [[0xff, 0xfe], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x28, 0x8c, 0x28]]) {
      const body = Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from(bytes), Buffer.from(`","wait":false,"callback_url":"${HOOK}"}`)]);
      cases.push({ name: `invalid utf-8 ${bytes.join(',')}`, method: 'POST', path: '/v1/completions', headers: JSON_TYPE, body, expect: { status: [202, 400], check: acceptedCheck } });
    }

    await s.expectNoProblems(cases);
    // Whatever was accepted, nothing leaked into Object.prototype of this process (the service runs in it).
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);

  it('accepted metadata with hostile keys is stored as data and echoed verbatim', async () => {
    const samples = [
      `{"__proto__":{"polluted":true},"x":1}`,
      `{"constructor":{"prototype":{"polluted":true}}}`,
      `{"toString":"s","valueOf":1,"hasOwnProperty":null,"__defineGetter__":[]}`,
      `{"ключ":"значение","🔑":"🎉","":"","nested":{"a":[1,[2,[3,{"b":null}]]]}}`,
    ];
    for (const metadataText of samples) {
      const res = await s.t.api('POST', '/v1/completions', {
        body: `{"prompt":"meta","wait":false,"callback_url":"${HOOK}","metadata":${metadataText}}`,
      });
      expect([202, 400], `${metadataText}: ${JSON.stringify(res.body)}`).toContain(res.status);
      if (res.status === 400) {
        expect(res.body.error.code).toBe('INVALID_REQUEST');
        continue;
      }
      // Read the raw text of the job, so that a __proto__ member is seen as it was sent.
      const job = await s.t.service.app.inject({ url: `/v1/completions/${res.body.id}`, headers: { authorization: `Bearer ${s.t.key}` } });
      const text = job.body;
      expect(job.statusCode).toBe(200);
      const sent = JSON.parse(metadataText) as object;
      const got = (JSON.parse(text) as { metadata: object }).metadata;
      expect(JSON.stringify(got)).toBe(JSON.stringify(sent));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
