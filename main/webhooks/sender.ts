import type { Clock, TimerHandle } from '../core/clock.js';
import type { StoreEvent } from '../core/jobs.js';
import { Listeners } from '../core/listeners.js';
import { isFinal } from '../queue/state-machine.js';
import type { WebhookTransport } from './https-transport.js';
import { isDelivered, type DueDelivery, type Lane, type WebhookOutbox } from './outbox.js';
import { signature } from './signature.js';
import { OneAtATime } from '../core/one-at-a-time.js';

/** api.md: the webhook User-Agent carries version 1 of the delivery format. */
const USER_AGENT = 'chatbridge-webhooks/1';

export interface SenderLimits {
  /** Attempts in flight at once, over every receiver. */
  concurrency: number;
  /** Attempts in flight at once to one origin: a slow receiver holds at most this many slots. */
  perOrigin: number;
  /** A receiver must answer within this (api.md: a 2xx within 10 s). */
  timeoutMs: number;
  /** How long shutdown lets attempts in flight finish before leaving them to the next start. */
  shutdownGraceMs: number;
}

export const DEFAULT_LIMITS: SenderLimits = { concurrency: 32, perOrigin: 8, timeoutMs: 10_000, shutdownGraceMs: 1_000 };

/**
 * Where to send a job's webhook and what, and whose job it is ((H) its account, whose secret
 * signs it; null for the service's own): rendered at each attempt, as GET would return the job then.
 */
export type RenderDelivery = (jobId: string) => Promise<{ url: string; body: string; account: string | null }>;

/** The secret that signs a delivery of `account`'s job (null: the service's own secret). */
export type SecretOf = (account: string | null) => Promise<string>;

/** How one attempt ended, for whoever watches (the service's log). */
export interface WebhookAttempt {
  jobId: string;
  /** The receiver's origin; its path and query are the caller's business. */
  origin: string;
  round: number;
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
}

/** After a look at the outbox failed (the database out of reach), when to look again. */
const LOOK_AGAIN_MS = 5_000;

/** Why an attempt was aborted from here. */
const TIMED_OUT = 'timed_out';
const SHUTDOWN = 'shutdown';

interface Flight {
  origin: string;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Drains the webhook outbox: signs and POSTs each due delivery and records how it ended.
 * It never touches job rows, and runs beside the queue and the API without holding either
 * up: attempts are bounded in number overall and per origin (per instance, when several
 * share one outbox: each sends only what it claimed), each has its own timeout on the
 * injected clock, and results are committed in groups. One timer waits for the earliest
 * scheduled retry; a restart finds the schedule in the database where it stood.
 */
export class WebhookSender {
  private readonly inFlight = new Map<string, Flight>();
  private readonly perOrigin = new Map<string, number>();
  private timer: TimerHandle | null = null;
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  /** The looks at the outbox: never two at once, one asked for meanwhile follows the one under way. */
  private readonly looks: OneAtATime;
  /** The account that last got an attempt started, and each account's origin that last did: for taking turns. */
  private lastAccount = '';
  private readonly lastOrigin = new Map<string, string>();
  private readonly attemptNews = new Listeners<[WebhookAttempt]>();
  private readonly errorNews = new Listeners<[Error]>();

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly secret: SecretOf,
    private readonly render: RenderDelivery,
    private readonly transport: WebhookTransport,
    private readonly clock: Clock,
    private readonly limits: SenderLimits = DEFAULT_LIMITS,
  ) {
    this.looks = new OneAtATime(
      () => (this.state === 'running' ? this.look() : Promise.resolve()),
      (error) => {
        this.failed(error);
        this.setTimer(LOOK_AGAIN_MS);
      },
      'turn',
    );
    outbox.onEnqueue(() => this.wake());
  }

  /** Starts sending: whatever is due now goes out, and the next retry is waited for. */
  start(): void {
    if (this.state !== 'new') return;
    this.state = 'running';
    this.wake();
  }

  /**
   * Looks at the outbox again soon: a delivery was added, a slot freed, or another process
   * (the command line) asked for a redelivery. Calls in one turn share one look.
   */
  wake(): void {
    if (this.state === 'running') void this.looks.run();
  }

  /**
   * Wakes for each job made final with a callback_url that `jobs` publishes: its first attempt
   * is due at once. A store shared by several instances publishes their moves too, so the
   * delivery of a job finished on another instance goes out at once from whichever sender
   * claims it first. Returns the function that stops it.
   */
  wakeOnFinalJobs(jobs: { onEvent(listener: (event: StoreEvent) => void): () => void }): () => void {
    return jobs.onEvent(({ job }) => {
      if (job.callback_url !== null && isFinal(job.status)) this.wake();
    });
  }

  /** `listener` hears how each attempt ended, after it is recorded (not those cut by shutdown). */
  onAttempt(listener: (attempt: WebhookAttempt) => void): () => void {
    return this.attemptNews.on(watcher(listener));
  }

  /**
   * `listener` hears what went wrong outside an attempt: a look at the outbox, or the
   * recording of an attempt, that failed (the database out of reach). The sender goes on:
   * it looks again later, and an unrecorded attempt is made again (at least once).
   */
  onError(listener: (error: Error) => void): () => void {
    return this.errorNews.on(watcher(listener));
  }

  /** Attempts in flight now; for tests and benchmarks. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Resolves once no look at the outbox is under way or asked for: what the looks so far
   * started is in flight by then (an attempt's answer is not waited for: a receiver may never
   * answer). Tests await this instead of sleeping.
   */
  async settled(): Promise<void> {
    for (;;) {
      // A look asked for in this turn starts in the next ('turn' gathering).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.looks.busy) return;
      await this.looks.idle();
    }
  }

  /**
   * Stops sending. Attempts in flight get a short grace to finish and be recorded; the rest
   * are abandoned unrecorded, so the next start makes them again (at least once). The
   * grace is real time: it bounds how long the process takes to exit.
   */
  async stop(): Promise<void> {
    if (this.state !== 'running') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    this.timer?.cancel();
    await this.looks.idle();
    const flights = [...this.inFlight.values()];
    if (flights.length > 0) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(flights.map((f) => f.done)),
        new Promise((resolve) => (grace = setTimeout(resolve, this.limits.shutdownGraceMs))),
      ]);
      clearTimeout(grace);
      const abandoned = [...this.inFlight.keys()];
      for (const f of this.inFlight.values()) f.controller.abort(SHUTDOWN);
      await Promise.allSettled(flights.map((f) => f.done));
      // Another instance may send them at once; failing that, they wait for the claim's lease.
      await this.outbox.release(abandoned).catch((error: Error) => this.failed(error));
    }
    this.transport.close();
    this.state = 'stopped';
  }

  /**
   * Starts every due attempt the limits allow, account by account and, within each, origin
   * by origin: the cost is a few index seeks per lane, never a walk through a backlog. When
   * the overall limit binds, each account with due work gets an equal share of the free
   * slots (what one leaves unused goes to the others), and the next look starts after the
   * last account served: one account's flood never holds up another's delivery, even to the
   * same receiver. Within an account, origins take turns the same way.
   */
  private async look(): Promise<void> {
    const now = this.clock.now();
    const lanes = await this.outbox.pendingLanes();
    const origins = new Map<string, string[]>();
    for (const { account, origin } of lanes) origins.set(account, [...(origins.get(account) ?? []), origin]);
    for (const account of this.lastOrigin.keys()) if (!origins.has(account)) this.lastOrigin.delete(account);
    let waiting = inTurn([...origins.keys()], this.lastAccount);
    while (waiting.length > 0 && this.free() > 0) {
      const share = Math.max(1, Math.floor(this.free() / waiting.length));
      const more: string[] = [];
      for (const account of waiting) {
        const asked = Math.min(share, this.free());
        if (asked <= 0) break;
        const started = await this.serve(account, origins.get(account)!, now, asked);
        if (this.state !== 'running') return;
        if (started > 0) this.lastAccount = account;
        // One that took less than it asked for has nothing more due that the limits allow.
        if (started === asked) more.push(account);
      }
      waiting = more;
    }
    const next = await this.outbox.nextDueAfter(now);
    if (this.state !== 'running') return;
    this.setTimer(next === null ? null : next - now);
  }

  /** Starts up to `budget` due attempts of `account`, its origins in turn; returns how many. */
  private async serve(account: string, origins: string[], now: number, budget: number): Promise<number> {
    let started = 0;
    for (const origin of inTurn(origins, this.lastOrigin.get(account) ?? '')) {
      const room = Math.min(this.limits.perOrigin - this.load(origin), budget - started);
      if (room <= 0) continue;
      const busy = [...this.inFlight].filter(([, f]) => f.origin === origin).map(([jobId]) => jobId);
      const lane: Lane = { account, origin };
      const due = await this.outbox.dueFor(lane, now, busy, room);
      if (this.state !== 'running') {
        // Stopped while they were being claimed: handed back unattempted, as at shutdown.
        await this.outbox.release(due.map((d) => d.job_id));
        return started;
      }
      for (const delivery of due) this.launch(delivery);
      if (due.length > 0) this.lastOrigin.set(account, origin);
      started += due.length;
      if (started >= budget) break;
    }
    return started;
  }

  /** Attempts that may start now under the overall limit. */
  private free(): number {
    return this.limits.concurrency - this.inFlight.size;
  }

  /** The one timer: the next look in `ms` on the injected clock, or none. */
  private setTimer(ms: number | null): void {
    this.timer?.cancel();
    this.timer = ms === null || this.state !== 'running' ? null : this.clock.setTimer(() => this.wake(), ms);
  }

  private failed(error: Error): void {
    this.errorNews.emit(error);
  }

  private load(origin: string): number {
    return this.perOrigin.get(origin) ?? 0;
  }

  private launch(delivery: DueDelivery): void {
    const controller = new AbortController();
    this.perOrigin.set(delivery.origin, this.load(delivery.origin) + 1);
    // An attempt whose result could not be recorded stays due (claimed until its lease ends).
    const done = this.attempt(delivery, controller).catch((error: Error) => this.failed(error)).finally(() => {
      this.inFlight.delete(delivery.job_id);
      const left = this.load(delivery.origin) - 1;
      if (left === 0) this.perOrigin.delete(delivery.origin);
      else this.perOrigin.set(delivery.origin, left);
      this.wake();
    });
    this.inFlight.set(delivery.job_id, { origin: delivery.origin, controller, done });
  }

  private async attempt(delivery: DueDelivery, controller: AbortController): Promise<void> {
    const { url, body: text, account } = await this.render(delivery.job_id);
    const body = Buffer.from(text);
    const secret = await this.secret(account);
    const startedAt = this.clock.now();
    const timestamp = Math.floor(startedAt / 1000);
    const timeout = this.clock.setTimer(() => controller.abort(TIMED_OUT), this.limits.timeoutMs);
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await this.transport.post({
        url,
        body,
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-service-timestamp': String(timestamp),
          'x-service-signature': signature(secret, timestamp, body),
        },
      });
    } catch (e) {
      if (controller.signal.reason === SHUTDOWN) return;
      error = controller.signal.reason === TIMED_OUT ? `no answer within ${this.limits.timeoutMs / 1000} s` : describe(e);
    } finally {
      timeout.cancel();
    }
    await this.outbox.record({
      jobId: delivery.job_id,
      round: delivery.round,
      startedAt,
      durationMs: this.clock.now() - startedAt,
      statusCode,
      error,
    });
    const ended: WebhookAttempt = {
      jobId: delivery.job_id,
      origin: delivery.origin,
      round: delivery.round,
      delivered: isDelivered(statusCode),
      statusCode,
      error,
    };
    this.attemptNews.emit(ended);
  }
}

/** `names` (in byte order) starting after `last`, then the rest: who comes next takes the first turn. */
function inTurn(names: string[], last: string): string[] {
  const after = names.findIndex((name) => name > last);
  return after <= 0 ? names : [...names.slice(after), ...names.slice(0, after)];
}

/** One line for the delivery log: Node's message, with its code when the message lacks it. */
function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (!(e instanceof Error)) return String(error);
  return e.code && !e.message.includes(e.code) ? `${e.message} (${e.code})` : e.message;
}

/** A watcher's failure must not stop the sender, nor keep the other watchers from hearing. */
function watcher<T>(listener: (news: T) => void): (news: T) => void {
  return (news) => {
    try {
      listener(news);
    } catch {
      // Nothing to do: the watcher's own bug, not the delivery's.
    }
  };
}
