/**
 * Idempotency-Key under hostile use: values over 255 characters, empty or odd ones, reuse with
 * another request or on another path (409 CONFLICT), and deeply nested bodies behind a key
 * (decisions.md, "Jobs": the key stands for the canonical body without `wait`, plus the path).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verify, type Expect, type Reply } from '../support/contract-answers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { bad, chatSuccess, deepArray, HOOK, JSON_TYPE, validSubmission } from '../support/hostile-values.js';
import { expectStillServing, hostileService } from '../support/request-cases.js';
import { ManualClock } from '../support/manual-clock.js';
import { Rng } from '../support/seeded-rng.js';

describe('Idempotency-Key', () => {
  const s = hostileService();

  it('bad values, reuse with another request, deeply nested bodies', async () => {
    const rng = new Rng(0x1de);
    const key = s.keys[3]!;
    const submit = (idempotencyKey: string, body: string, path = '/v1/completions') =>
      s.send({ name: 'idem', method: 'POST', path, headers: { ...JSON_TYPE, 'idempotency-key': idempotencyKey }, body, expect: { status: [] } }, `Bearer ${key}`);
    const problems: string[] = [];
    const check = (name: string, r: Reply | { error: string }, c: Expect) => {
      if ('error' in r) return problems.push(`${name}: no answer (${r.error})`);
      for (const p of verify('POST', c, r)) problems.push(`${name}: ${p}`);
      return undefined;
    };
    const body = (prompt: string, extra: Record<string, unknown> = {}) => JSON.stringify({ prompt, wait: false, callback_url: HOOK, ...extra });
    const accepted = validSubmission({ wait: false, callback_url: HOOK });

    check('key of 256', await submit('k'.repeat(256), body('a')), bad('Idempotency-Key'));
    check('key of 10 000', await submit('k'.repeat(10_000), body('a')), bad('Idempotency-Key'));
    check('empty key', await submit('', body('a')), bad('Idempotency-Key'));
    check('key of 255', await submit(`${'k'.repeat(250)}${rng.int(10_000, 99_999)}`, body('a')), accepted);
    check('latin-1 key', await submit(`clé-${rng.int(0, 1e9)}`, body('a')), accepted);
    check('hostile key', await submit(`'; DROP TABLE idempotency; -- ${rng.int(0, 1e9)}`, body('a')), accepted);

    // Reuse: the same request gives the original job; another request or another path, 409.
    const reused = `reuse-${rng.int(0, 1e9)}`;
    const first = await submit(reused, body('original'));
    check('first use', first, accepted);
    const firstId = 'error' in first ? '' : (JSON.parse(first.text) as { id: string }).id;
    check('same request again', await submit(reused, body('original')), {
      status: [200],
      check: (job) => (job.id === firstId ? undefined : `another job ${job.id} than ${firstId}`),
    });
    check('same request, keys reordered', await submit(reused, JSON.stringify({ callback_url: HOOK, wait: false, prompt: 'original' })), {
      status: [200],
      check: (job) => (job.id === firstId ? undefined : `another job ${job.id} than ${firstId}`),
    });
    check('another prompt', await submit(reused, body('different')), { status: [409], code: ['CONFLICT'] });
    check('another path', await submit(reused, JSON.stringify({ model: 'service/auto', messages: [{ role: 'user', content: 'original' }] }), '/v1/chat/completions'), { status: [409], code: ['CONFLICT'] });
    check('junk body with a used key', await submit(reused, '{"prompt":'), bad('body'));

    // Deep nesting in what the key stands for. Within the metadata limit it is a valid job; in a
    // chat request, unknown members are ignored, however deep.
    check('metadata 2 000 levels deep, within 4 096 bytes', await submit(`deep-${rng.int(0, 1e9)}`, body('deep').slice(0, -1) + `,"metadata":{"d":${deepArray(2_000)}}}`), accepted);
    check('metadata 20 000 levels deep', await submit(`deeper-${rng.int(0, 1e9)}`, body('deep').slice(0, -1) + `,"metadata":{"d":${deepArray(20_000)}}}`), bad(['metadata', 'body']));
    // Refusing absurd nesting outright (400) would be fine too; a 5xx is not.
    const deepOk = (e: Expect): Expect => ({ ...e, status: [...e.status, 400], code: ['INVALID_REQUEST'], field: ['body', 'ignored'] });
    const deepChat = (depth: number) => `{"model":"service/auto","messages":[{"role":"user","content":"deep chat"}],"ignored":${deepArray(depth)}}`;
    check('chat with an ignored member 5 000 levels deep', await submit(`chat-deep-${rng.int(0, 1e9)}`, deepChat(5_000), '/v1/chat/completions'), deepOk(chatSuccess('service/auto')));
    check('chat with an ignored member 50 000 levels deep', await submit(`chat-deeper-${rng.int(0, 1e9)}`, deepChat(50_000), '/v1/chat/completions'), deepOk(chatSuccess('service/auto')));
    // Without an Idempotency-Key the same chat request is fine.
    const plain = await s.send({ name: 'deep chat, no key', method: 'POST', path: '/v1/chat/completions', headers: JSON_TYPE, body: deepChat(50_000), expect: { status: [] } }, `Bearer ${key}`);
    check('chat with an ignored member 50 000 levels deep, no Idempotency-Key', plain, deepOk(chatSuccess('service/auto')));

    expect(problems, problems.join('\n')).toEqual([]);
  }, 60_000);

  it('still answers normal requests afterwards', () => expectStillServing(s.t));
});

describe('Idempotency-Key, a service each', () => {
  let t: TestService;
  afterEach(async () => t?.stop());
  const queued = { wait: false, callback_url: HOOK };

  it('makes one job of twenty simultaneous requests with one key', async () => {
    t = await startTestService({ listen: false });
    const body = { prompt: 'same', ...queued };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.api('POST', '/v1/completions', { body, headers: { 'idempotency-key': 'k-20' } })),
    );
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 202)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(await t.driver.recent(10)).toHaveLength(1);
  });

  it('answers a repeat with the original job, and 409 for a different request', async () => {
    t = await startTestService({ listen: false, agents: { claude: 1 } });
    const headers = { 'idempotency-key': 'k-1' };
    const first = await t.api('POST', '/v1/completions', { body: { prompt: 'hello', metadata: { a: 1 } }, headers });
    expect(first.status).toBe(200);
    // wait differs: still the same request. Key order differs: still the same.
    const again = await t.api('POST', '/v1/completions', { body: { metadata: { a: 1 }, prompt: 'hello', wait: false }, headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const waited = await t.api('POST', '/v1/completions', { body: { prompt: 'hello', metadata: { a: 1 } }, headers });
    expect(waited.body.id).toBe(first.body.id);
    expect(t.agents[0]!.runs).toHaveLength(1);
    const other = await t.api('POST', '/v1/completions', { body: { prompt: 'bye' }, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CONFLICT');
    const chat = await t.api('POST', '/v1/chat/completions', {
      body: { model: 'service/auto', messages: [{ role: 'user', content: 'hello' }] },
      headers,
    });
    expect(chat.status).toBe(409);
  });

  it('lets a repeat wait for the same running job', async () => {
    t = await startTestService({ listen: false, agents: { gemini: 1 } });
    const headers = { 'idempotency-key': 'k-run' };
    const body = { prompt: 'slow [[ms=300]]' };
    const [a, b] = await Promise.all([
      t.api('POST', '/v1/completions', { body, headers }),
      t.api('POST', '/v1/completions', { body, headers }),
    ]);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(t.agents[0]!.runs).toHaveLength(1);
  });

  it('forgets keys after 24 hours and refuses keys over 255 characters', async () => {
    const clock = new ManualClock();
    t = await startTestService({ listen: false, clock });
    const headers = { 'idempotency-key': 'k-day' };
    const a = await t.api('POST', '/v1/completions', { body: { prompt: 'a', ...queued }, headers });
    clock.advance(24 * 3_600_000);
    const b = await t.api('POST', '/v1/completions', { body: { prompt: 'b', ...queued }, headers });
    expect(b.status).toBe(202);
    expect(b.body.id).not.toBe(a.body.id);
    const long = await t.api('POST', '/v1/completions', { body: { prompt: 'c', ...queued }, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.error.details.field).toBe('Idempotency-Key');
  });
});
