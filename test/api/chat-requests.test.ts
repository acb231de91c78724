/**
 * POST /v1/chat/completions with wrong models, messages, roles, contents and stream values,
 * OpenAI's options it ignores, hostile keys, malformed JSON and random junk: each answer as
 * api.md and decisions.md ("Status, models, chat completions") say, generated from a seeded
 * PRNG and held to the contract's rules for every answer.
 */
import { describe, expect, it } from 'vitest';
import type { Expect } from '../support/contract-answers.js';
import { bad, chatSuccess, isString, JUNK, junkJson, MAX_PROMPT, PROVIDERS } from '../support/hostile-values.js';
import { expectStillServing, hostileService, post, type Case } from '../support/request-cases.js';
import { Rng } from '../support/seeded-rng.js';

describe('POST /v1/chat/completions with hostile requests', () => {
  const s = hostileService();

  it('wrong models, messages, roles, contents, stream and junk', async () => {
    const rng = new Rng(0xc4a7);
    const cases: Case[] = [];
    let seq = 0;
    const msg = () => [{ role: 'user', content: `chat ${seq++}` }];
    const chat = (name: string, body: unknown, expect: Expect) => cases.push(post('/v1/chat/completions', name, typeof body === 'string' ? body : JSON.stringify(body), expect));

    // model
    for (const model of [...JUNK.filter((v) => v !== 'service/auto'), 'gpt-4o', 'service/', 'service/AUTO', 'SERVICE/auto', 'auto', 'chatgpt', 'service/openai', 'service/auto ', 'service/chatgpt/x', '../service/auto', 'service/auto\u0000']) {
      chat(`model ${JSON.stringify(model)?.slice(0, 30)}`, { model, messages: msg() }, bad('model'));
    }
    chat('no model', { messages: msg() }, bad('model'));
    for (const model of ['service/auto', ...PROVIDERS.map((p) => `service/${p}`)]) chat(`model ${model}`, { model, messages: msg() }, chatSuccess(model));

    // messages
    for (const messages of JUNK.filter((v) => !Array.isArray(v))) chat(`messages ${JSON.stringify(messages)?.slice(0, 30)}`, { model: 'service/auto', messages }, bad('messages'));
    chat('messages []', { model: 'service/auto', messages: [] }, bad('messages'));
    chat('no messages', { model: 'service/auto' }, bad('messages'));
    chat('257 messages', { model: 'service/auto', messages: Array.from({ length: 257 }, (_, i) => ({ role: 'user', content: `m${i}` })) }, bad('messages'));
    chat('256 messages', { model: 'service/auto', messages: Array.from({ length: 256 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` })) }, chatSuccess('service/auto'));
    for (const m of [null, 1, 'hi', [], true, ['user', 'hi']]) chat(`message ${JSON.stringify(m)}`, { model: 'service/auto', messages: [m] }, bad('messages.0'));
    chat('second message junk', { model: 'service/auto', messages: [...msg(), 7] }, bad('messages.1'));
    // role
    for (const role of [...JUNK.filter((v) => !isString(v)), '', 'tool', 'function', 'SYSTEM', 'User', 'user ', 'admin', 'root', 'model']) {
      chat(`role ${JSON.stringify(role)?.slice(0, 20)}`, { model: 'service/auto', messages: [{ role, content: 'x' }] }, bad('messages.0.role'));
    }
    chat('no role', { model: 'service/auto', messages: [{ content: 'x' }] }, bad('messages.0.role'));
    // content
    for (const content of [null, 1, true, {}, { text: 'x' }, [1], [null], ['text']]) {
      chat(`content ${JSON.stringify(content)}`, { model: 'service/auto', messages: [{ role: 'user', content }] }, bad(['messages.0.content', 'messages.0.content.0']));
    }
    chat('no content', { model: 'service/auto', messages: [{ role: 'user' }] }, bad('messages.0.content'));
    for (const parts of [[{ type: 'text' }], [{ type: 'text', text: 5 }]]) {
      chat(`content parts ${JSON.stringify(parts).slice(0, 40)}`, { model: 'service/auto', messages: [{ role: 'user', content: parts }] }, bad(['messages.0.content', 'messages.0.content.0', 'messages.0.content.0.text']));
    }
    // A part of no kind this service takes, and a remote image (attachments.test.ts has every file part).
    chat('audio part', { model: 'service/auto', messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, bad('messages.0.content.0.type'));
    chat('remote image', { model: 'service/auto', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }, bad('messages.0.content.0.image_url.url'));
    chat('text content parts', { model: 'service/auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'part one' }, { type: 'text', text: 'part two' }] }] }, chatSuccess('service/auto'));
    // No text at all: there is nothing to send.
    chat('empty content', { model: 'service/auto', messages: [{ role: 'user', content: '' }] }, bad(['messages', 'messages.0.content']));
    chat('blank content', { model: 'service/auto', messages: [{ role: 'user', content: ' \n\t ' }] }, bad(['messages', 'messages.0.content']));
    chat('no parts', { model: 'service/auto', messages: [{ role: 'user', content: [] }] }, bad(['messages', 'messages.0.content']));
    // Lengths: one message over 100 000 is 400, a flattened total over 100 000 is 413.
    chat('message of 100 001', { model: 'service/auto', messages: [{ role: 'user', content: 'c'.repeat(MAX_PROMPT + 1) }] }, bad(['messages.0.content', 'messages']));
    chat('second message of 100 001', { model: 'service/auto', messages: [...msg(), { role: 'user', content: 'c'.repeat(MAX_PROMPT + 1) }] }, bad(['messages.1.content', 'messages']));
    chat('parts of 100 001', { model: 'service/auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'c'.repeat(MAX_PROMPT + 1) }] }] }, bad(['messages.0.content', 'messages.0.content.0', 'messages.0.content.0.text', 'messages']));
    chat('flattened over 100 000', { model: 'service/auto', messages: [{ role: 'system', content: 's'.repeat(50_000) }, { role: 'user', content: 'u'.repeat(50_000) }] }, { status: [413], code: ['PAYLOAD_TOO_LARGE'] });
    chat('lone user message of 100 000', { model: 'service/auto', messages: [{ role: 'user', content: 'u'.repeat(MAX_PROMPT) }] }, chatSuccess('service/auto'));
    // stream
    chat('stream true', { model: 'service/auto', messages: msg(), stream: true }, bad('stream'));
    for (const stream of ['true', 1, 0, [], {}, 'false']) chat(`stream ${JSON.stringify(stream)}`, { model: 'service/auto', messages: msg(), stream }, bad('stream'));
    chat('stream false', { model: 'service/auto', messages: msg(), stream: false }, chatSuccess('service/auto'));
    chat('stream null', { model: 'service/auto', messages: msg(), stream: null }, chatSuccess('service/auto'));
    // Options OpenAI clients send are ignored.
    chat('openai options', { model: 'service/auto', messages: msg(), temperature: 9, top_p: -1, n: 3, user: 'u', max_tokens: 'x', tools: [{}], response_format: { type: 'json_object' } }, chatSuccess('service/auto'));
    // Hostile keys and malformed JSON.
    for (const text of [
      '{"model":"service/auto","messages":[{"role":"user","content":"p"}],"__proto__":{"polluted":true}}',
      '{"model":"service/auto","messages":[{"role":"user","content":"p","__proto__":{"polluted":true}}]}',
      '{"model":"service/auto","messages":[{"role":"user","content":"p"}],"constructor":{"prototype":{"polluted":true}}}',
    ]) {
      chat(`hostile keys ${text.slice(60, 100)}`, text, { status: [200, 400], code: ['INVALID_REQUEST'], field: ['body', '__proto__', 'constructor'] });
    }
    for (const text of ['{', '{"model":"service/auto","messages":[', '{"model":"service/auto","messages":[{"role":"user","content":"p"}]', "{'model':'service/auto'}", '[]', 'null', '"x"']) {
      chat(`malformed ${text.slice(0, 30)}`, text, bad('body'));
    }
    // Random junk documents (no top-level model, so never valid).
    for (let i = 0; i < 250; i++) chat('junk', junkJson(rng, rng.int(0, 5)), { status: [400], code: ['INVALID_REQUEST'] });
    // Random messages arrays: validity decided by the contract's rules, per case.
    const roles = ['system', 'user', 'assistant', 'tool', 'user'];
    for (let i = 0; i < 250; i++) {
      const n = rng.int(0, 4);
      const messages = Array.from({ length: n }, () => ({
        role: rng.pick(roles),
        content: rng.chance(0.15) ? rng.pick([null, 3, [{ type: 'image_url' }]] as unknown[]) : rng.text(rng.int(0, 40)),
      }));
      const badIndex = messages.findIndex((m) => m.role === 'tool' || typeof m.content !== 'string');
      let expect: Expect;
      if (n === 0) expect = bad('messages');
      else if (badIndex >= 0) expect = { status: [400], code: ['INVALID_REQUEST'] };
      else if (messages.length === 1 && messages[0]!.role === 'user' && String(messages[0]!.content).trim() === '') expect = bad(['messages', 'messages.0.content']);
      else expect = chatSuccess('service/auto');
      chat(`random messages ${JSON.stringify(messages).slice(0, 60)}`, { model: 'service/auto', messages }, expect);
    }

    await s.expectNoProblems(cases);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});
