/**
 * Webhook delivery through the real service to a real HTTPS receiver on loopback (its
 * certificate self-signed, made with the openssl binary), with time injected: signatures
 * over the raw bytes, every final status, the retry schedule, 3xx, slow and refusing
 * receivers, restarts, redelivery, and a burst of 500 jobs finishing at once.
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Provider } from '../../main/core/providers.js';
import { httpsTransport } from '../../main/webhooks/https-transport.js';
import { NoDelivery } from '../../main/webhooks/deliveries.js';
import { startTestService, testDataDir, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { makeCertificate, verifySignature, WebhookReceiver, type Certificate, type Responder } from '../support/webhook-receiver.js';

let cert: Certificate;
beforeAll(() => {
  cert = makeCertificate();
});
afterAll(() => cert.remove());

let t: TestService | undefined;
let clock: ManualClock;
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  for (const r of receivers.splice(0)) await r.close();
});

/** The service, trusting the test certificate the way NODE_EXTRA_CA_CERTS would. */
async function start(agents: Partial<Record<Provider, number>> = { chatgpt: 1 }, options: { dataDir?: string; at?: number } = {}) {
  clock = new ManualClock(options.at);
  t = await startTestService({ listen: false, agents, clock, webhookTransport: httpsTransport({ ca: cert.cert }), ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  return t;
}

async function receiver(respond?: Responder) {
  const r = await WebhookReceiver.start(cert, respond);
  receivers.push(r);
  return r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Waits for the attempts under way to end (their receivers answer) and for the looks at the
 * outbox that follows, and says that none of those started another attempt.
 */
const quiet = async () => {
  const sender = t!.service.webhookSender;
  await until(() => sender.inFlightCount() === 0, 15_000, 'the attempts under way');
  await sender.settled();
  expect(sender.inFlightCount()).toBe(0);
};
const delivery = async (id: string) => (await t!.driver.delivery(id))!;
/** Waits until `n` attempts of the job are recorded and none is in flight. */
const recorded = (id: string, n: number) =>
  until(async () => (await t!.driver.deliveryAttempts(id)).length >= n && t!.service.webhookSender.inFlightCount() === 0, 15_000, `${n} recorded attempts`);

async function submitQueued(body: Record<string, unknown>): Promise<string> {
  const r = await t!.api('POST', '/v1/completions', { body: { wait: false, ...body } });
  expect(r.status).toBe(202);
  return r.body.id;
}

describe('the request', () => {
  it('is the job exactly as GET returns it, signed over the raw bytes sent, with the contract headers', async () => {
    await start();
    const hook = await receiver();
    const metadata = { order: 'A-17', nested: { list: [1, 2.5, null, true], text: 'é 🙂 "quoted" \\ \n' }, empty: {} };
    const r = await t!.api('POST', '/v1/completions', { body: { prompt: 'sign me', callback_url: hook.url('/hooks/a?tenant=7'), metadata } });
    expect(r.status).toBe(200);
    const [got] = await hook.waitFor(1);

    expect(got!.method).toBe('POST');
    expect(got!.path).toBe('/hooks/a?tenant=7');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toBe('chatbridge-webhooks/1');
    expect(Number(got!.headers['content-length'])).toBe(got!.body.length);
    expect(got!.headers['x-service-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect(got!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    const secret = t!.service.signingSecret.get();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(verifySignature(secret, got!, clock.now())).toBe(true);
    // One byte changed, or another secret, or a stale clock: refused.
    expect(verifySignature(secret, { ...got!, body: Buffer.from(got!.body.toString().replace('sign me', 'sign mE')) }, clock.now())).toBe(false);
    expect(verifySignature('whsec_other', got!, clock.now())).toBe(false);
    expect(verifySignature(secret, got!, clock.now() + 301_000)).toBe(false);

    // Byte for byte what GET /v1/completions/{id} answers, metadata unchanged.
    const get = await t!.service.app.inject({ url: `/v1/completions/${r.body.id}`, headers: { authorization: `Bearer ${t!.key}` } });
    expect(got!.body.toString('utf8')).toBe(get.body);
    const job = JSON.parse(got!.body.toString('utf8'));
    expect(job).toMatchObject({ id: r.body.id, status: 'succeeded', response: r.body.response, metadata });
    expect(job.finished_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(job).not.toHaveProperty('queue_position');

    await recorded(r.body.id, 1);
    expect(await delivery(r.body.id)).toMatchObject({ state: 'delivered', round: 1, round_attempts: 1, next_at: null });
    expect(await t!.driver.deliveryAttempts(r.body.id)).toEqual([
      { job_id: r.body.id, attempt: 1, round: 1, started_at: clock.now(), duration_ms: 0, status_code: 204, error: null },
    ]);
  });

  it('goes out for every final status, response null unless succeeded, metadata unchanged', async () => {
    await start({ chatgpt: 1 });
    const hook = await receiver();
    const callback_url = hook.url();
    const ids: Record<string, string> = {};
    const meta = (c: string) => ({ case: c, n: 1.5, deep: { a: [c] } });

    const plain = (await t!.api('POST', '/v1/completions', { body: { prompt: 'no hook' } })).body.id;
    ids.succeeded = (await t!.api('POST', '/v1/completions', { body: { prompt: 'fine', callback_url, metadata: meta('succeeded') } })).body.id;
    const failed = await t!.api('POST', '/v1/completions', { body: { prompt: 'no [[fail=rejected]]', callback_url, metadata: meta('failed') } });
    expect(failed.body.error.code).toBe('PROMPT_REJECTED');
    ids.failed = failed.body.error.details.job_id;

    ids.cancelledRunning = await submitQueued({ prompt: 'long [[hang]]', callback_url, metadata: meta('cancelledRunning') });
    await until(async () => (await t!.driver.job(ids.cancelledRunning!))!.status === 'dispatched');
    expect((await t!.api('DELETE', `/v1/completions/${ids.cancelledRunning}`)).body.status).toBe('cancelled');

    await t!.driver.settings.setPaused(true);
    ids.cancelledQueued = await submitQueued({ prompt: 'never runs', callback_url, metadata: meta('cancelledQueued') });
    expect((await t!.api('DELETE', `/v1/completions/${ids.cancelledQueued}`)).body.status).toBe('cancelled');
    ids.expired = await submitQueued({ prompt: 'too late', callback_url, deadline_ms: 10_000, metadata: meta('expired') });
    await hook.waitFor(4);
    expect(await t!.driver.delivery(ids.expired)).toBeUndefined(); // not final yet: no delivery
    clock.advance(10_000);
    await hook.waitFor(5);

    const byCase = new Map(hook.jobs().map((j) => [j.metadata.case, j]));
    const expected: Record<string, string> = {
      succeeded: 'succeeded',
      failed: 'failed',
      cancelledRunning: 'cancelled',
      cancelledQueued: 'cancelled',
      expired: 'expired',
    };
    for (const [c, status] of Object.entries(expected)) {
      const job = byCase.get(c);
      expect(job, c).toMatchObject({ id: ids[c], status, metadata: meta(c) });
      expect(job.finished_at, c).toBeDefined();
      if (status !== 'succeeded') expect(job.response, c).toBeNull();
    }
    expect(byCase.get('succeeded').response).toMatch(/^echo\(/);
    expect(byCase.get('cancelledQueued').attempts).toBe(0);
    expect((await t!.driver.job(plain))!.status).toBe('succeeded');
    expect(await t!.driver.delivery(plain)).toBeUndefined(); // no callback_url, no delivery
    await quiet();
    expect(hook.received).toHaveLength(5);
  });

  it('a job cancelled while queued is delivered as cancelled, never having run', async () => {
    await start({ claude: 1 });
    const hook = await receiver();
    await t!.driver.settings.setPaused(true);
    const id = await submitQueued({ prompt: 'changed my mind', callback_url: hook.url(), metadata: { k: 'v' } });
    await t!.api('DELETE', `/v1/completions/${id}`);
    const [got] = await hook.waitFor(1);
    expect(JSON.parse(got!.body.toString())).toMatchObject({
      id,
      status: 'cancelled',
      response: null,
      attempts: 0,
      agent_id: null,
      metadata: { k: 'v' },
      finished_at: expect.any(String),
    });
    expect(t!.agents[0]!.runs).toHaveLength(0);
  });
});

describe('failures and the retry schedule', () => {
  it('a 500, then a 2xx: the retry comes 30 s later on the injected clock, not before', async () => {
    await start();
    const answers = [500, 200];
    const hook = await receiver(() => ({ status: answers.shift()! }));
    const started = clock.now();
    const id = await submitQueued({ prompt: 'retry me', callback_url: hook.url() });
    await hook.waitFor(1);
    await recorded(id, 1);
    expect(await delivery(id)).toMatchObject({ state: 'pending', round_attempts: 1, next_at: started + 30_000 });

    clock.advance(29_999);
    await quiet();
    expect(hook.received).toHaveLength(1);
    clock.advance(1);
    await hook.waitFor(2);
    await recorded(id, 2);
    expect(await delivery(id)).toMatchObject({ state: 'delivered', round_attempts: 2, next_at: null });
    expect((await t!.driver.deliveryAttempts(id)).map((a) => [a.started_at - started, a.status_code, a.error])).toEqual([
      [0, 500, null],
      [30_000, 200, null],
    ]);
    // The retry is signed afresh, at its own time.
    expect(hook.received[1]!.headers['x-service-timestamp']).toBe(String(Math.floor((started + 30_000) / 1000)));
    expect(verifySignature(t!.service.signingSecret.get(), hook.received[1]!, clock.now())).toBe(true);
  });

  it('five attempts at 0, 30 s, 5 min, 30 min and 2 h, then it stops; the job stays readable', async () => {
    await start();
    const hook = await receiver(() => ({ status: 503 }));
    const started = clock.now();
    const id = await submitQueued({ prompt: 'unlucky', callback_url: hook.url() });
    const gaps = [30_000, 300_000, 1_800_000, 7_200_000];
    await recorded(id, 1);
    for (const [i, gap] of gaps.entries()) {
      clock.advance(gap);
      await recorded(id, i + 2);
    }
    expect((await t!.driver.deliveryAttempts(id)).map((a) => a.started_at - started)).toEqual([0, 30_000, 330_000, 2_130_000, 9_330_000]);
    expect(await delivery(id)).toMatchObject({ state: 'failed', round_attempts: 5, next_at: null });
    clock.advance(24 * 3_600_000);
    await quiet();
    expect(hook.received).toHaveLength(5);
    await t!.service.retention.stop(); // its next sweep is the only other timer
    expect(clock.pendingTimers()).toBe(0);
    const get = await t!.api('GET', `/v1/completions/${id}`);
    expect(get.body).toMatchObject({ id, status: 'succeeded' });
  });

  it('a 3xx is a failed attempt and its Location is never visited', async () => {
    await start();
    const elsewhere = await receiver();
    const hook = await receiver(() => ({ status: 302, headers: { location: elsewhere.url() } }));
    const id = await submitQueued({ prompt: 'redirected', callback_url: hook.url() });
    await recorded(id, 1);
    await quiet();
    expect(hook.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect((await t!.driver.deliveryAttempts(id))[0]).toMatchObject({ status_code: 302, error: null });
    expect(await delivery(id)).toMatchObject({ state: 'pending', next_at: clock.now() + 30_000 });
  });

  it('a handler that takes 12 s fails at 10 s (injected clock); its late answer changes nothing; the retry succeeds', async () => {
    await start();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const hook = await receiver(async () => {
      if (++calls === 1) await slow; // the test moves the clock 12 s before releasing it
      return { status: 200 };
    });
    const started = clock.now();
    const id = await submitQueued({ prompt: 'slow receiver', callback_url: hook.url() });
    await hook.waitFor(1);
    clock.advance(9_999);
    await sleep(50);
    expect(await t!.driver.deliveryAttempts(id)).toHaveLength(0);
    clock.advance(1);
    await recorded(id, 1);
    expect((await t!.driver.deliveryAttempts(id))[0]).toMatchObject({ status_code: null, error: 'no answer within 10 s', duration_ms: 10_000 });
    clock.advance(2_000);
    release();
    await sleep(50);
    expect(await delivery(id)).toMatchObject({ state: 'pending', next_at: started + 10_000 + 30_000 });
    clock.advance(28_000);
    await hook.waitFor(2);
    await recorded(id, 2);
    expect((await delivery(id)).state).toBe('delivered');
  });

  it('a refused connection and an untrusted certificate are failed attempts', async () => {
    clock = new ManualClock();
    // The service's own default: the system's authorities only, which do not know the test certificate.
    t = await startTestService({ listen: false, agents: { chatgpt: 1 }, clock });
    const hook = await receiver();
    const closedPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const refused = await submitQueued({ prompt: 'nobody home', callback_url: `https://127.0.0.1:${closedPort}/hook` });
    const untrusted = await submitQueued({ prompt: 'who are you', callback_url: hook.url() });
    await recorded(refused, 1);
    await recorded(untrusted, 1);
    expect((await t.driver.deliveryAttempts(refused))[0]!.error).toMatch(/ECONNREFUSED/);
    expect((await t.driver.deliveryAttempts(untrusted))[0]!.error).toMatch(/self-signed certificate/);
    expect(hook.received).toHaveLength(0); // the TLS handshake failed before any request
    expect(await delivery(untrusted)).toMatchObject({ state: 'pending', round_attempts: 1 });
  });

  it('a rotated secret signs the next attempt, retries included', async () => {
    await start();
    const answers = [500, 204];
    const hook = await receiver(() => ({ status: answers.shift()! }));
    const id = await submitQueued({ prompt: 'rotate', callback_url: hook.url() });
    await recorded(id, 1);
    const before = t!.service.signingSecret.get();
    const after = await t!.service.signingSecret.rotate();
    expect(after).not.toBe(before);
    clock.advance(30_000);
    await hook.waitFor(2);
    expect(verifySignature(before, hook.received[0]!, clock.now())).toBe(true);
    expect(verifySignature(after, hook.received[1]!, clock.now())).toBe(true);
    expect(verifySignature(before, hook.received[1]!, clock.now())).toBe(false);
  });
});

describe('durability and redelivery', () => {
  it('a restart between attempts resumes where the schedule stands', async () => {
    const dataDir = testDataDir();
    await start({ chatgpt: 1 }, { dataDir });
    const answers = [500, 204];
    const hook = await receiver(() => ({ status: answers.shift()! }));
    const started = clock.now();
    const id = await submitQueued({ prompt: 'survive', callback_url: hook.url() });
    await recorded(id, 1);
    await t!.stop();

    // Back 10 s later: the retry is due 20 s from now, not at once.
    await start({ chatgpt: 1 }, { dataDir, at: started + 10_000 });
    await quiet();
    expect(hook.received).toHaveLength(1);
    clock.advance(19_999);
    await quiet();
    expect(hook.received).toHaveLength(1);
    clock.advance(1);
    await hook.waitFor(2);
    await recorded(id, 2);
    expect(await delivery(id)).toMatchObject({ state: 'delivered', round_attempts: 2 });
    expect(JSON.parse(hook.received[1]!.body.toString())).toMatchObject({ id, status: 'succeeded' });
  });

  it('an attempt in flight at shutdown is not recorded, and is made again at the next start', async () => {
    const dataDir = testDataDir();
    await start({ chatgpt: 1 }, { dataDir });
    let calls = 0;
    const hook = await receiver(() => (++calls === 1 ? new Promise(() => {}) : { status: 204 }));
    const id = await submitQueued({ prompt: 'interrupted', callback_url: hook.url() });
    await hook.waitFor(1);
    await t!.stop(); // waits its 1 s grace, then abandons the attempt
    await start({ chatgpt: 1 }, { dataDir, at: clock.now() });
    await hook.waitFor(2);
    await recorded(id, 1);
    expect((await t!.driver.deliveryAttempts(id)).map((a) => a.status_code)).toEqual([204]);
    expect((await delivery(id)).state).toBe('delivered');
  });

  it('redelivery on demand starts a new round; the log keeps every attempt', async () => {
    await start();
    const hook = await receiver();
    const id = await submitQueued({ prompt: 'again please', callback_url: hook.url() });
    await recorded(id, 1);
    const asked = await t!.service.webhooks.redeliver(id);
    expect(asked).toMatchObject({ jobId: id, url: hook.url(), state: 'pending', round: 2, nextAttemptAt: clock.now() });
    await hook.waitFor(2);
    await recorded(id, 2);
    const log = await t!.service.webhooks.log(id);
    expect(log).toMatchObject({ state: 'delivered', round: 2, nextAttemptAt: null });
    expect(log.attempts.map((a) => [a.attempt, a.round, a.status_code])).toEqual([
      [1, 1, 204],
      [2, 2, 204],
    ]);
    expect(hook.received[1]!.body.equals(hook.received[0]!.body)).toBe(true);

    const plain = await submitQueued({ prompt: 'no hook [[hang]]' });
    await t!.driver.settings.setPaused(true);
    const waiting = await submitQueued({ prompt: 'later', callback_url: hook.url() });
    await expect(t!.service.webhooks.log('job_nope')).rejects.toThrow(new NoDelivery('No job job_nope.'));
    await expect(t!.service.webhooks.redeliver(plain)).rejects.toThrow(/has no callback_url/);
    await expect(t!.service.webhooks.redeliver(waiting)).rejects.toThrow(/is queued: its webhook is sent when it finishes/);
  });
});

describe('load', () => {
  it('500 jobs finishing at once are each delivered exactly once to a healthy receiver', async () => {
    await start({ chatgpt: 1 });
    const hook = await receiver();
    await t!.driver.settings.setPaused(true);
    const ids = new Set<string>();
    for (let batch = 0; batch < 10; batch++) {
      const accepted = await Promise.all(
        Array.from({ length: 50 }, (_, i) => submitQueued({ prompt: `burst ${batch}-${i}`, callback_url: hook.url(), deadline_ms: 10_000 })),
      );
      for (const id of accepted) ids.add(id);
    }
    expect(hook.received).toHaveLength(0);
    clock.advance(10_000); // every deadline passes in one transaction: 500 deliveries at once
    await hook.waitFor(500, 20_000);
    await until(() => t!.service.webhookSender.inFlightCount() === 0);
    // Nothing in flight and no look at the outbox under way: no delivery can follow.
    await t!.service.webhookSender.settled();
    expect(t!.service.webhookSender.inFlightCount()).toBe(0);
    const delivered = hook.jobs();
    expect(delivered).toHaveLength(500);
    expect(new Set(delivered.map((j) => j.id))).toEqual(ids);
    expect(delivered.every((j) => j.status === 'expired')).toBe(true);
    for (const id of ids) expect(await delivery(id)).toMatchObject({ state: 'delivered', round_attempts: 1 });
    expect(hook.maxActive).toBeLessThanOrEqual(8); // the per-origin bound
  });

  it('a receiver that never answers holds a bounded share: others are delivered at once and the API answers', async () => {
    await start({ chatgpt: 1 });
    const stuck = await receiver(() => new Promise(() => {}));
    const healthy = await receiver();
    await t!.driver.settings.setPaused(true);
    for (let i = 0; i < 20; i++) await submitQueued({ prompt: `stuck ${i}`, callback_url: stuck.url(), deadline_ms: 10_000 });
    clock.advance(10_000);
    await stuck.waitFor(8);
    // Every look at the outbox done: a ninth would have been sent by one.
    await t!.service.webhookSender.settled();
    expect(t!.service.webhookSender.inFlightCount()).toBe(8);
    expect(stuck.received).toHaveLength(8);

    const id = await submitQueued({ prompt: 'healthy', callback_url: healthy.url() });
    await t!.api('DELETE', `/v1/completions/${id}`);
    await healthy.waitFor(1, 1_000);
    expect((await t!.api('GET', '/v1/status')).status).toBe(200);

    clock.advance(10_000); // the stuck attempts time out; the next eight go out
    await stuck.waitFor(16);
  });
});
