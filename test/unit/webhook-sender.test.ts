/**
 * The sender against a scripted transport and a ManualClock: its bounds on attempts in
 * flight (overall and per origin), its timeout, waking only for committed deliveries, and
 * a shutdown that leaves unfinished attempts to the next start.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogBook } from '../../main/logs/log-book.js';
import { deliveryFor } from '../../main/queue/job-moves.js';
import { logWebhookFailures } from '../../main/logs/log-feeds.js';
import { openDatabase, type Db } from '../../main/storage/sqlite/db.js';
import type { WebhookRequest, WebhookTransport } from '../../main/webhooks/https-transport.js';
import { type WebhookOutbox } from '../../main/webhooks/outbox.js';
import { DEFAULT_LIMITS, WebhookSender, type SenderLimits, type WebhookAttempt } from '../../main/webhooks/sender.js';
import { RETRY_DELAYS_MS } from '../../main/webhooks/schedule.js';
import { tempDataDir } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';

/** Every request waits until the test answers it (or its signal aborts it). */
class ScriptedTransport implements WebhookTransport {
  readonly pending: { request: WebhookRequest; answer: (status: number) => void }[] = [];
  readonly aborted: string[] = [];
  closed = false;

  post(request: WebhookRequest): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ request, answer: resolve });
      request.signal.addEventListener('abort', () => {
        this.aborted.push(String(request.signal.reason));
        reject(new Error('aborted'));
      });
    });
  }

  close(): void {
    this.closed = true;
  }

  /** Answers every request waiting for `origin` (all when not given). */
  answer(status: number, origin?: string): void {
    for (const p of [...this.pending]) {
      if (origin && !p.request.url.startsWith(origin)) continue;
      this.pending.splice(this.pending.indexOf(p), 1);
      p.answer(status);
    }
  }

  to(origin: string): number {
    return this.pending.filter((p) => p.request.url.startsWith(origin)).length;
  }
}

let dir: string;
let db: Db;
let outbox: SqliteWebhookOutbox;
let clock: ManualClock;
let transport: ScriptedTransport;
let sender: WebhookSender;
const urls = new Map<string, string>();

function startSender(limits: Partial<SenderLimits> = {}, through: WebhookOutbox = outbox): void {
  sender = new WebhookSender(
    through,
    async () => 'whsec_unit',
    async (jobId) => ({ url: urls.get(jobId)!, body: JSON.stringify({ id: jobId }), account: null }),
    transport,
    clock,
    { ...DEFAULT_LIMITS, shutdownGraceMs: 0, ...limits },
  );
  sender.start();
}

let n = 0;
/** A final job (of `account`, (H)) with a callback to `origin`, enqueued as JobStore would. */
function finished(origin: string, account: string | null = null): string {
  const id = `job_${++n}`;
  const url = `${origin}/hook`;
  urls.set(id, url);
  db.prepare(
    `INSERT INTO jobs (id, status, prompt, priority, timeout_ms, deadline_at, max_attempts, callback_url, metadata, created_at)
     VALUES (?, 'cancelled', 'p', 0, 1, 1, 1, ?, '{}', 0)`,
  ).run(id, url);
  outbox.enqueue(deliveryFor({ id, callback_url: url, account_id: account }, clock.now())!);
  return id;
}

beforeEach(() => {
  dir = tempDataDir();
  db = openDatabase(dir);
  outbox = new SqliteWebhookOutbox(db);
  clock = new ManualClock();
  transport = new ScriptedTransport();
});
afterEach(async () => {
  await sender.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const SLOW = 'https://slow.test';
const FAST = 'https://fast.test';

describe('webhook sender', () => {
  it('bounds attempts per origin and overall: a backlog for a slow receiver does not hold up another', async () => {
    startSender({ concurrency: 6, perOrigin: 4 });
    for (let i = 0; i < 50; i++) finished(SLOW);
    await until(() => transport.to(SLOW) === 4);
    const fast = [finished(FAST), finished(FAST), finished(FAST)];
    await until(() => transport.to(FAST) === 2); // 6 in all: 4 slow + 2 fast
    // Every look under way has ended: one that broke the bounds would have started a 7th.
    await sender.settled();
    expect([transport.to(SLOW), transport.to(FAST), sender.inFlightCount()]).toEqual([4, 2, 6]);
    transport.answer(204, FAST);
    await until(() => transport.to(FAST) === 1);
    transport.answer(204, FAST);
    await until(async () => (await Promise.all(fast.map((id) => outbox.get(id)))).every((d) => d!.state === 'delivered'));
    expect(transport.to(SLOW)).toBe(4);
  });

  it('origins take turns when the overall limit binds', async () => {
    startSender({ concurrency: 4, perOrigin: 4 });
    const origins = ['https://a.test', 'https://b.test', 'https://c.test'];
    for (const origin of origins) for (let i = 0; i < 8; i++) finished(origin);
    const served: string[] = [];
    for (let round = 0; round < 3; round++) {
      await until(() => transport.pending.length === 4);
      served.push(new URL(transport.pending[0]!.request.url).origin);
      expect(new Set(transport.pending.map((p) => new URL(p.request.url).origin)).size).toBe(1);
      transport.answer(204);
      await until(() => transport.pending.length === 0 || transport.pending.length === 4);
    }
    expect(served).toEqual(origins);
  });

  it("accounts take turns (H): one account's flood, to many receivers and to the other's, does not hold up the other's one delivery", async () => {
    startSender({ concurrency: 4, perOrigin: 4 });
    const shared = 'https://relay.test';
    // acct_a comes first in every order, and its deliveries are all due before acct_b's.
    for (let i = 0; i < 60; i++) finished(i % 3 === 0 ? shared : `https://a${i % 5}.test`, 'acct_a');
    const quiet = finished(shared, 'acct_b');
    await until(() => transport.pending.length === 4);
    expect(transport.pending.map((p) => JSON.parse(p.request.body.toString()).id)).toContain(quiet);
  });

  it('signs each request with the current secret and the contract headers', async () => {
    startSender();
    const id = finished(FAST);
    await until(() => transport.pending.length === 1);
    const { headers, body } = transport.pending[0]!.request;
    expect(body.toString()).toBe(JSON.stringify({ id }));
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'chatbridge-webhooks/1',
      'x-service-timestamp': String(Math.floor(clock.now() / 1000)),
      'x-service-signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
    });
  });

  it('aborts an attempt at the timeout on the injected clock and records why', async () => {
    startSender();
    const id = finished(SLOW);
    await until(() => transport.pending.length === 1);
    clock.advance(DEFAULT_LIMITS.timeoutMs);
    await until(async () => (await outbox.attempts(id)).length === 1);
    expect(transport.aborted).toEqual(['timed_out']);
    expect((await outbox.attempts(id))[0]).toMatchObject({ status_code: null, error: 'no answer within 10 s', duration_ms: 10_000 });
    expect((await outbox.get(id))!.next_at).toBe(clock.now() + 30_000);
  });

  it('wakes for a delivery only once its transaction committed; a rolled-back one is never sent', async () => {
    startSender();
    expect(() =>
      db.transaction(() => {
        finished(FAST);
        throw new Error('the final transition failed');
      })(),
    ).toThrow();
    // A look the rolled-back delivery asked for would have run by now.
    await sender.settled();
    expect(transport.pending).toHaveLength(0);
  });

  it('at shutdown, attempts still unanswered after the grace are abandoned unrecorded and stay due', async () => {
    startSender({ shutdownGraceMs: 20 });
    const quick = finished(FAST);
    const stuck = finished(SLOW);
    await until(() => transport.pending.length === 2);
    const stopping = sender.stop();
    transport.answer(204, FAST); // answered within the grace: recorded
    await stopping;
    expect(transport.aborted).toEqual(['shutdown']);
    expect(transport.closed).toBe(true);
    expect((await outbox.get(quick))!.state).toBe('delivered');
    expect(await outbox.attempts(stuck)).toHaveLength(0);
    expect((await outbox.dueFor({ account: '', origin: SLOW }, clock.now(), [], 10)).map((d) => d.job_id)).toEqual([stuck]);
  });
});

describe('webhook sender, when the outbox cannot be reached', () => {
  /** The outbox, with the next call of `method` failing as a lost database would. */
  const failingOnce = (method: 'pendingLanes' | 'record'): WebhookOutbox => {
    let failed = false;
    return new Proxy(outbox, {
      get(target, name) {
        const real = Reflect.get(target, name, target) as (...args: unknown[]) => unknown;
        if (name !== method || failed) return typeof real === 'function' ? real.bind(target) : real;
        failed = true;
        return () => Promise.reject(new Error('Connection terminated unexpectedly'));
      },
    });
  };

  it('a look that fails is reported, and made again 5 s later on its clock', async () => {
    const errors: string[] = [];
    const id = finished(FAST);
    startSender({}, failingOnce('pendingLanes'));
    sender.onError((e) => errors.push(e.message));
    await until(() => errors.length === 1);
    expect(errors).toEqual(['Connection terminated unexpectedly']);
    expect(transport.pending).toHaveLength(0);
    clock.advance(5_000);
    await until(() => transport.pending.length === 1);
    transport.answer(204);
    await until(async () => (await outbox.get(id))!.state === 'delivered');
  });

  it('an attempt whose result cannot be recorded is reported, stays due, and is made again', async () => {
    const errors: string[] = [];
    const id = finished(FAST);
    startSender({}, failingOnce('record'));
    sender.onError((e) => errors.push(e.message));
    await until(() => transport.pending.length === 1);
    transport.answer(204);
    await until(() => errors.length === 1);
    await until(() => transport.pending.length === 1);
    transport.answer(204);
    await until(async () => (await outbox.get(id))!.state === 'delivered');
    expect(await outbox.attempts(id)).toHaveLength(1);
  });
});

describe('webhook sender, watched', () => {
  it("tells its watchers how each attempt ended; the service log names a failure's origin only and says what comes next", async () => {
    startSender();
    const log = new LogBook(clock);
    const heard: WebhookAttempt[] = [];
    sender.onAttempt((a) => heard.push(a));
    sender.onAttempt(logWebhookFailures((id) => outbox.get(id), log));

    const ok = finished(FAST);
    await until(() => transport.pending.length === 1);
    transport.answer(204);
    await until(() => heard.length === 1);
    expect(heard[0]).toEqual({ jobId: ok, origin: FAST, round: (await outbox.get(ok))!.round, delivered: true, statusCode: 204, error: null });
    expect(log.recent()).toEqual([]);

    const bad = finished(SLOW);
    for (const delay of [0, ...RETRY_DELAYS_MS]) {
      clock.advance(delay);
      await until(() => transport.pending.length === 1);
      const before = heard.length;
      transport.answer(500);
      await until(() => heard.length === before + 1);
    }
    expect((await outbox.get(bad))!.state).toBe('failed');
    // Each line waits for its look-up of what comes next.
    await until(() => log.recent().length === RETRY_DELAYS_MS.length + 1);
    const lines = log.recent().map((e) => `${e.level} ${e.source} ${e.message}`);
    expect(lines).toHaveLength(RETRY_DELAYS_MS.length + 1);
    expect(lines[0]).toBe(`warn webhook Webhook for job ${bad} to ${SLOW} failed (HTTP 500); it will be tried again`);
    expect(lines.at(-1)).toBe(`error webhook Webhook for job ${bad} to ${SLOW} failed (HTTP 500); no more tries (redeliver from the job's page)`);
    expect(lines.join('\n')).not.toContain('/hook');
  });
});
