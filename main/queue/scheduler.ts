import { AgentFailure, CUT_TO_COLLECT, VariantUnavailable, type Agent, type AgentResult, type SentPrompt } from '../core/agent.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { VariantCatalog } from '../core/providers.js';
import type { Settings } from '../settings/settings-store.js';
import type { AgentPool, AgentRecord } from './agent-pool.js';
import { capsOf, HourlyCapGate } from './hourly-caps.js';
import { variantName } from './variant-caps.js';
import { HOUR_MS, type HourlyUsage } from './hourly-usage.js';
import type { AttemptEnd, AttemptRow, Claim, JobRow, StoreEvent } from '../core/jobs.js';
import type { JobStore } from './job-store.js';
import { roundRobinByAccount } from './queue-order.js';
import { attemptRecordFor, NOT_COLLECTED, whenTimeRunsOut } from './retry-policy.js';
import type { RotationPicker } from './rotation.js';
import { VariantOffers } from './variant-offers.js';
import { OneAtATime } from '../core/one-at-a-time.js';

interface Running {
  agentId: string;
  attempt: number;
  /** The run's, then (once its time ran out) the collection's. */
  controller: AbortController;
  /** Where the answer can be found again, once the prompt went (AgentTask.onSent). */
  sent: SentPrompt | null;
  /** `sent` kept in the store as told, one write after the other (the address comes after the send). */
  recorded: Promise<void>;
}

/** What a clean stop did with the attempts under way (Scheduler.stop). */
export interface StopReport {
  /** Attempts that ended within the grace: answered, or failed as they would have anyway. */
  ended: number;
  /** Jobs that went back to the queue, their prompt not sent yet: no attempt spent. */
  requeued: number;
  /** Answers still being written: their conversation is reopened to collect them when the service runs again. */
  toCollect: number;
  /** Prompts that went with no conversation address to reopen: ended, never sent again. */
  notCollected: number;
}

/**
 * Why a sent prompt's answer is collected by reopening its conversation, with nothing sent:
 * how long the reopened page may take to show it finished, and what the attempt's record
 * says of it, found (`found`) or not (the conversation reopened `after` …).
 */
interface Collection {
  ms: number;
  found: string;
  after: string;
}

/**
 * Why an attempt was stopped from outside, as `signal.reason` tells the agent; CUT_TO_COLLECT
 * when its time ran out on an answer to collect (retry-policy.ts `whenTimeRunsOut`).
 */
export type AbortReason = 'cancelled' | 'timed_out' | 'expired' | 'shutdown' | typeof CUT_TO_COLLECT;

/**
 * How long a collection may take: the conversation reopened, and an answer that was nearly
 * done at the cut given a little more time to show finished. Then the job ends TIMEOUT.
 */
export const COLLECT_MS = 120_000;

/** Which agents a job may run on. A continued conversation was pinned to its agent at submission. */
export interface JobConstraint {
  req_provider: string | null;
  req_agent_id: string | null;
  /** The variant asked for: agents known not to offer it are passed over while another may. */
  variant?: string | null;
}

/**
 * Matches queued jobs with eligible agents, runs each attempt, and turns what the agent
 * returns or throws into the job's next state. It owns every timer of the queue: per-attempt
 * timeouts, the earliest deadline, and the moment a full hourly cap frees a slot. It hears
 * the store's events: a new job arms the deadline timer and wakes a round, a job taken from
 * its agent (cancelled, expired) stops the attempt, a job back in the queue wakes a round.
 */
export class Scheduler {
  private readonly running = new Map<string, Running>();
  /** The dispatch rounds: never two at once; the wakes of one turn of the event loop share one. */
  private readonly rounds: OneAtATime;
  /** Store writes begun outside a round (an attempt's end, a deadline's expiries): `settled()` waits for them. */
  private readonly writes = new Set<Promise<unknown>>();
  /** Stopping: no round dispatches any more; the attempts under way have the grace to end. */
  private stopped = false;
  /** The grace is over: what the attempts still under way do now is the restart's to pick up, not written. */
  private cut = false;
  /** Ends a stop's grace early (a second Ctrl-C), or has it skipped if it has not begun. */
  private hurry: () => void = () => (this.hurried = true);
  private hurried = false;
  /** Every attempt under way (a run, and its collection), as a stop's grace waits for them. */
  private readonly underWay = new Set<Promise<void>>();
  /**
   * Answers left to collect when the service stopped or died (JobStore.sentUncollected): the
   * job stays dispatched until its agent, ready again, reopens the conversation. By job id.
   */
  private readonly uncollected = new Map<string, { job: JobRow; attempt: AttemptRow }>();
  private deadlineTimer: { at: number; handle: TimerHandle } | null = null;
  /** The hourly caps this scheduler holds jobs to, and its wake-up when one frees a slot. */
  private readonly caps: HourlyCapGate;
  /** The account whose job was dispatched last: the next round starts with the account after it. */
  private lastServed: string | null | undefined = undefined;
  /**
   * The store skipped claims of the last round: another instance may have taken a cap's
   * last slots with starts not heard yet. The next start heard asks for a round, which then
   * sees the cap full and waits for its slot.
   */
  private skippedClaims = false;

  constructor(
    private readonly store: JobStore,
    private readonly pool: AgentPool,
    usage: HourlyUsage,
    private readonly rotation: RotationPicker,
    private readonly settings: () => Settings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** A dispatch round, or a write of what an agent sent, that failed (the store out of reach). */
    private readonly onError: (error: Error) => void,
    /** What each agent's account is known to offer of its provider's variants. */
    readonly offers = new VariantOffers(),
    /** The packs' variants: a long-thinking one's attempt is collected, never sent again (whenTimeRunsOut). */
    private readonly variants: VariantCatalog = () => [],
  ) {
    this.rounds = new OneAtATime(() => this.dispatchRound(), onError, 'turn');
    this.caps = new HourlyCapGate(usage, pool, clock, () => this.wake());
    pool.onChange(() => this.wake());
    store.onEvent((event) => this.onStoreEvent(event));
  }

  /**
   * Expires what passed its deadline while the service was down, takes up the answers left to
   * collect (each waits for its agent), then starts dispatching.
   */
  async start(): Promise<void> {
    await this.onDeadline();
    for (const left of await this.store.sentUncollected()) this.uncollected.set(left.job.id, left);
    this.wake();
  }

  /**
   * Asks for a dispatch round soon; calls in one turn of the event loop share one round.
   * Rounds never overlap: a wake during one runs one more round after it.
   */
  wake(): void {
    if (!this.stopped) void this.rounds.run();
  }

  /**
   * Resolves once the scheduler has nothing left to do by itself: no round under way or
   * asked for, and no attempt's end or deadline's expiry being written. Attempts whose agent
   * is still at work are not waited for; an agent that answers within the turn (a scripted
   * one) has answered by then. Tests await this instead of sleeping.
   */
  async settled(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.rounds.busy && this.writes.size === 0) return;
      await Promise.allSettled([this.rounds.idle(), ...this.writes]);
    }
  }

  private onStoreEvent({ job, from, start }: StoreEvent): void {
    if (start && this.skippedClaims) {
      this.skippedClaims = false;
      this.wake();
    }
    if (from === null) {
      // A job was accepted: keep the deadline timer on the earliest deadline and try to run it.
      this.armDeadline(job.deadline_at);
      if (this.candidates(job).some((a) => this.pool.isReady(a.id))) this.wake();
    } else if (from === 'dispatched' && (job.status === 'cancelled' || job.status === 'expired')) {
      this.abort(job.id, job.status);
      this.uncollected.delete(job.id);
    } else if (from === 'dispatched' && job.status === 'queued') {
      this.wake();
    }
  }

  /** Whether an attempt is under way on `agentId` (its result not yet recorded). */
  isRunningOn(agentId: string): boolean {
    return [...this.running.values()].some((r) => r.agentId === agentId);
  }

  /**
   * Agents that match a job's constraint, eligible or not, in the user's order.
   */
  candidates(job: JobConstraint): AgentRecord[] {
    return this.pool.list().filter((a) => matches(a, job));
  }

  /** Whether `agent` could take one more job under every hourly cap (HourlyCapGate.underCaps). */
  underCaps(agent: Pick<AgentRecord, 'id' | 'provider' | 'cap_per_hour'>, settings = this.settings(), planned: readonly AgentRecord[] = []): boolean {
    return this.caps.underCaps(agent, settings, planned);
  }

  /** The hourly cap of the variant `job` asks for when it is used up (HourlyCapGate.variantCapped). */
  variantCapped(job: JobConstraint, settings = this.settings(), planned = 0): { variant: string; cap: number; frees: number | null } | null {
    return this.caps.variantCapped(job.req_provider, job.variant, settings, planned);
  }

  /** When `agent` is under every cap again: null while it is (or no cap holds it). */
  capsFreeAt(agent: Pick<AgentRecord, 'id' | 'provider' | 'cap_per_hour'>, settings = this.settings()): number | null {
    return this.caps.freeAt(agent, settings);
  }

  /**
   * The clean stop. No job starts any more (a round under way finishes first; the jobs it
   * dispatched are not started). The attempts under way get `graceMs` on the clock to end as
   * they would (endGrace cuts it short); then each is cut as its prompt stands, and nothing
   * they do after is written:
   * - not sent yet: aborted, and back to the queue without spending an attempt;
   * - sent, the conversation's address known: its page is left answering (CUT_TO_COLLECT)
   *   and the job stays dispatched, for a restart to collect the answer (start);
   * - sent with no address to reopen: it ends not collected, never sent again.
   */
  async stop(graceMs = 0): Promise<StopReport> {
    this.stopped = true;
    this.deadlineTimer?.handle.cancel();
    this.caps.stop();
    await this.rounds.idle();
    const under = this.running.size;
    await this.grace(graceMs);
    const ended = under - this.running.size;
    this.cut = true;
    const cut = [...this.running.values()];
    this.running.clear();
    for (const running of cut) running.controller.abort((running.sent?.conversation ? CUT_TO_COLLECT : 'shutdown') satisfies AbortReason);
    // What each told of its prompt is in the store before the store decides what may be sent again.
    await Promise.all(cut.map((running) => running.recorded));
    const moved = await this.store.requeueDispatched(this.clock.now(), 'stopped');
    return {
      ended,
      requeued: moved.filter((m) => m.job.status === 'queued').length,
      toCollect: cut.filter((running) => running.sent?.conversation).length + this.uncollected.size,
      notCollected: moved.filter((m) => m.job.status === 'failed').length,
    };
  }

  /** How many attempts are under way: what a stop's grace waits for. */
  get attemptsUnderWay(): number {
    return this.underWay.size;
  }

  /** Ends a stop's grace now: the attempts still under way are cut at once. */
  endGrace(): void {
    this.hurry();
  }

  /** Resolves once every attempt under way has ended, `ms` have passed on the clock, or endGrace is called. */
  private async grace(ms: number): Promise<void> {
    if (this.underWay.size === 0 || ms <= 0 || this.hurried) return;
    let timer: TimerHandle | undefined;
    await Promise.race([
      Promise.allSettled(this.underWay),
      new Promise<void>((resolve) => {
        timer = this.clock.setTimer(resolve, ms);
        this.hurry = resolve;
      }),
    ]);
    timer?.cancel();
  }

  /**
   * Matches queued jobs, in dispatch order (each account's by priority then age, the
   * accounts in turn: roundRobinByAccount), with ready agents under their caps. All the
   * claims of one round are one transaction (one fsync), then the attempts start. The store
   * holds each claim to its caps again, counting in that transaction (other instances
   * dispatch too), and skips a claim whose job left the queue meanwhile: only what was
   * dispatched counts against the hourly caps, as HourlyUsage hears from the store's events.
   */
  private async dispatchRound(): Promise<void> {
    const settings = this.settings();
    if (settings.paused || this.stopped) return;
    let ready = await this.resumeCollections(this.pool.list().filter((a) => this.pool.isReady(a.id)));
    if (ready.length === 0) return;
    let blockedByCap = false;
    const planned: AgentRecord[] = [];
    const claims: Claim[] = [];
    /** The variants (provider/variant) of the jobs claimed so far in this round. */
    const plannedVariants: (string | null)[] = [];
    const lastServed = new Map<string, string | null>();
    for (const job of roundRobinByAccount(await this.store.queuedInOrder(), this.lastServed)) {
      const matching = this.offering(job, ready.filter((a) => matches(a, job)));
      if (matching.length === 0) continue;
      const variant = job.req_provider ? variantName(job.req_provider, job.variant) : null;
      const allowed = matching.filter((a) => this.underCaps(a, settings, planned));
      if (allowed.length === 0 || this.variantCapped(job, settings, plannedVariants.filter((v) => v === variant).length)) {
        blockedByCap = true;
        continue;
      }
      const chosen = this.rotation.pick(settings.rotation, allowed);
      planned.push(chosen);
      plannedVariants.push(variant);
      claims.push({ jobId: job.id, agentId: chosen.id, provider: chosen.provider, caps: capsOf(chosen, settings, variant), ...(variant ? { variant } : {}) });
      lastServed.set(job.id, job.account_id);
      ready = ready.filter((a) => a !== chosen);
      if (ready.length === 0) break;
    }
    if (claims.length > 0) {
      const dispatched = await this.store.dispatch(claims, this.clock.now());
      this.skippedClaims = dispatched.length < claims.length;
      for (const job of dispatched) {
        this.lastServed = lastServed.get(job.id)!;
        // Stopping meanwhile: stop() puts the job back in the queue with the running ones.
        if (this.stopped) continue;
        const agent = this.pool.liveAgent(job.agent_id!);
        if (!agent) {
          await this.endAttempt(job.id, job.attempts, { outcome: 'agent_lost', errorCode: 'AGENT_LOST', detail: 'The agent went away as the job was dispatched.' });
          continue;
        }
        this.pool.setBusy(agent.id, true);
        this.track(this.runAttempt(job, agent));
      }
    }
    if (blockedByCap) this.caps.wakeWhenFree(settings);
  }

  /**
   * The answers left to collect whose agent is among `ready`: each agent reopens its
   * conversation before it takes any other job. One whose agent is gone ends not collected.
   * Returns the agents of `ready` still free.
   */
  private async resumeCollections(ready: AgentRecord[]): Promise<AgentRecord[]> {
    for (const [jobId, { job, attempt }] of this.uncollected) {
      const gone = !this.pool.get(attempt.agent_id);
      const agent = ready.some((a) => a.id === attempt.agent_id) ? this.pool.liveAgent(attempt.agent_id) : undefined;
      if (!gone && !agent) continue;
      this.uncollected.delete(jobId);
      if (!agent) {
        const detail = `the agent that sent the prompt was removed before it could reopen the conversation (${attempt.sent_conversation}).`;
        await this.endAttempt(jobId, attempt.attempt, { ...NOT_COLLECTED, detail });
        continue;
      }
      ready = ready.filter((a) => a.id !== agent.id);
      this.pool.setBusy(agent.id, true);
      this.track(this.resumeCollection(job, attempt, agent));
    }
    return ready;
  }

  /** A collection left by a stop (or a crash), under the attempt that sent the prompt. */
  private async resumeCollection(job: JobRow, attempt: AttemptRow, agent: Agent): Promise<void> {
    const sent = { conversation: attempt.sent_conversation, turnsBefore: attempt.sent_turns_before ?? 0 };
    const running: Running = { agentId: agent.id, attempt: attempt.attempt, controller: new AbortController(), sent, recorded: Promise.resolve() };
    this.running.set(job.id, running);
    try {
      await this.collect(job, running, agent, {
        ms: job.timeout_ms,
        found: 'The service stopped before the answer finished: collected by reopening its conversation once it ran again, nothing sent again.',
        after: 'once the service ran again',
      });
    } finally {
      if (this.running.get(job.id) === running) this.running.delete(job.id);
      this.pool.jobDone(agent.id, this.settings().pauseMs);
    }
  }

  private async runAttempt(job: JobRow, agent: Agent): Promise<void> {
    const controller = new AbortController();
    const attempt = job.attempts;
    const running: Running = { agentId: agent.id, attempt, controller, sent: null, recorded: Promise.resolve() };
    this.running.set(job.id, running);
    const timeout = this.clock.setTimer(() => this.timeRanOut(job, running, agent), job.timeout_ms);
    try {
      const conversation = job.conversation_in ? ((await this.store.conversation(job.conversation_in))?.address ?? null) : null;
      const result = await agent.run({
        prompt: job.prompt,
        conversation,
        signal: controller.signal,
        label: `${job.id}-${attempt}`,
        variant: job.variant,
        onSent: (sent) => this.heardSent(job.id, running, sent),
      });
      if (job.variant) this.offers.answeredUnder(agent.id, job.variant);
      await this.endAttempt(job.id, attempt, this.answered(job, result));
    } catch (error) {
      if (controller.signal.reason === CUT_TO_COLLECT) {
        const s = job.timeout_ms / 1000;
        return await this.collect(job, running, agent, {
          ms: COLLECT_MS,
          found: `The answer finished after the attempt's ${s} s: collected by reopening its conversation, nothing sent again.`,
          after: `after the attempt's ${s} s`,
        });
      }
      const failure = agentFailure(error);
      this.heed(agent, failure);
      // The variant this agent just refused is not offered, whatever its page listed: the next try
      // goes elsewhere. A page that showed no choices says nothing of the others.
      if (failure instanceof VariantUnavailable) {
        if (failure.offered) this.offers.learn(agent.id, failure.offered.filter((v) => v !== failure.variant));
        else this.offers.refused(agent.id, failure.variant);
      }
      const { outcome, errorCode } = attemptRecordFor(failure.kind);
      const retryElsewhere = this.candidates(job).some(
        (a) => a.id !== agent.id && ['idle', 'busy'].includes(this.pool.state(a.id)) && (!job.variant || this.offers.mayOffer(a.id, job.variant)),
      );
      const detail = failure instanceof VariantUnavailable ? variantRefusal(failure) : failure.message;
      if (outcome !== 'succeeded' && outcome !== 'cancelled') await this.endAttempt(job.id, attempt, { outcome, errorCode, detail, retryElsewhere });
    } finally {
      timeout.cancel();
      if (this.running.get(job.id) === running) this.running.delete(job.id);
      this.pool.jobDone(agent.id, this.settings().pauseMs);
    }
  }

  /**
   * The agent tells where the answer to the prompt it sent can be found again: kept in memory
   * for a collection in this run, and in the store, in the order told, for one after a
   * restart. Once a stop has cut the attempt, what it tells is the restart's no more.
   */
  private heardSent(jobId: string, running: Running, sent: SentPrompt): void {
    if (this.cut) return;
    running.sent = sent;
    running.recorded = running.recorded.then(() => this.written(this.store.recordSent(jobId, running.attempt, sent))).catch(this.onError);
  }

  /** The attempt's time ran out: it ends timed out (and may be tried again), or its answer is to be collected. */
  private timeRanOut(job: JobRow, running: Running, agent: Agent): void {
    const long = this.variants(agent.provider).some((v) => v.id === job.variant && v.timeoutMs !== null);
    const then = whenTimeRunsOut(long, running.sent);
    // The run ends leaving the page answering; runAttempt collects once it has.
    if (then === 'collect') return running.controller.abort(CUT_TO_COLLECT satisfies AbortReason);
    this.abort(job.id, 'timed_out');
    void this.endAttempt(
      job.id,
      running.attempt,
      then === 'retry'
        ? { outcome: 'timed_out', errorCode: 'ATTEMPT_TIMEOUT' }
        : { ...NOT_COLLECTED, detail: `the prompt went, but the page never gave its conversation an address to reopen within the attempt's ${job.timeout_ms / 1000} s.` },
    );
  }

  /**
   * Collects the answer to a prompt sent earlier: the agent that sent it (it holds the page,
   * and the attempt) reopens the conversation, sending nothing, within `how.ms`. A
   * long-thinking variant's attempt cut at its time is collected so, once; so is an answer
   * a stop left to the restart. What it finds ends the attempt (its record says so): the
   * answer, or none, and then the job ends TIMEOUT.
   */
  private async collect(job: JobRow, running: Running, agent: Agent, how: Collection): Promise<void> {
    // Cancelled, expired or stopped since the cut: the store ended the attempt.
    if (this.running.get(job.id) !== running) return;
    const address = running.sent!.conversation!;
    const controller = (running.controller = new AbortController());
    const budget = this.clock.setTimer(() => controller.abort('timed_out' satisfies AbortReason), how.ms);
    try {
      if (!agent.collect) throw new AgentFailure('agent_lost', 'this agent cannot reopen a conversation.');
      const result = await agent.collect({ prompt: job.prompt, sent: { ...running.sent!, conversation: address }, signal: controller.signal, label: `${job.id}-${running.attempt}` });
      const answered = this.answered(job, result);
      await this.endAttempt(job.id, running.attempt, { ...answered, detail: answered.detail ? `${how.found} ${answered.detail}` : how.found });
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason !== 'timed_out') return;
      const failure = agentFailure(error);
      this.heed(agent, failure);
      const why = controller.signal.aborted ? `the page showed no finished answer ${how.ms / 1000} s after reopening` : failure.message;
      await this.endAttempt(job.id, running.attempt, { ...NOT_COLLECTED, detail: `the conversation (${address}) was reopened ${how.after}: ${why}` });
    } finally {
      budget.cancel();
    }
  }

  /** How an attempt that answered ends. */
  private answered(job: JobRow, result: AgentResult): Extract<AttemptEnd, { outcome: 'succeeded' }> {
    return {
      outcome: 'succeeded',
      response: result.text,
      conversationRef: job.conversation_in ?? this.ids.conversation(),
      conversationAddress: result.conversation,
      modelUsed: result.modelUsed,
      detail: result.finish ?? null,
    };
  }

  /** What a failure says of the agent's account: a usage limit rests it until the limit lifts. */
  private heed(agent: Agent, failure: AgentFailure): void {
    if (failure.kind === 'rate_limited') this.pool.coolDown(agent.id, failure.retryAt ?? this.clock.now() + HOUR_MS);
  }

  /**
   * The agents of `agents` that may offer the job's variant. When every candidate of the job
   * is known not to, all of `agents`: one attempt looks at the picker again (the account may
   * have changed), and its refusal ends the job.
   */
  private offering(job: JobConstraint, agents: AgentRecord[]): AgentRecord[] {
    const variant = job.variant;
    if (!variant) return agents;
    const mayOffer = (a: AgentRecord) => this.offers.mayOffer(a.id, variant);
    return this.candidates(job).some(mayOffer) ? agents.filter(mayOffer) : agents;
  }

  /**
   * A result that comes after cancel, deadline or timeout closed the attempt is dropped by the
   * store; one that comes after a stop's grace is not written (the stop moved the job).
   */
  private async endAttempt(jobId: string, attempt: number, end: AttemptEnd): Promise<void> {
    if (this.cut) return;
    await this.written(this.store.endAttempt(jobId, attempt, end, this.clock.now()));
  }

  /** An attempt under way, as a stop's grace waits for it. */
  private track(attempt: Promise<void>): void {
    this.underWay.add(attempt);
    void attempt.finally(() => this.underWay.delete(attempt));
  }

  /** `write`, counted among those `settled()` waits for until it ends. */
  private async written<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    try {
      return await write;
    } finally {
      this.writes.delete(write);
    }
  }

  private abort(jobId: string, reason: AbortReason): void {
    const running = this.running.get(jobId);
    if (!running) return;
    this.running.delete(jobId);
    running.controller.abort(reason);
  }

  private armDeadline(at: number): void {
    if (this.stopped || (this.deadlineTimer && this.deadlineTimer.at <= at)) return;
    this.deadlineTimer?.handle.cancel();
    this.deadlineTimer = { at, handle: this.clock.setTimer(() => void this.written(this.onDeadline()), at - this.clock.now()) };
  }

  /** Expires what is due (its running attempts stop on the store's events), then waits for the next deadline. */
  private async onDeadline(): Promise<void> {
    this.deadlineTimer = null;
    await this.store.expireDue(this.clock.now());
    const next = await this.store.nextDeadline();
    if (next !== null) this.armDeadline(next);
  }
}

/** What went wrong in an agent, typed: anything but an AgentFailure is the agent lost. */
function agentFailure(error: unknown): AgentFailure {
  return error instanceof AgentFailure ? error : new AgentFailure('agent_lost', error instanceof Error ? error.message : String(error));
}

/** What a refused variant's attempt records (the agent's words and the ids offered): the job's 502 says it when no other agent may offer the variant. */
function variantRefusal(failure: VariantUnavailable): string {
  if (!failure.offered) return failure.message;
  return `${failure.message} Variants offered: ${failure.offered.length > 0 ? failure.offered.join(', ') : 'none'}.`;
}

/** Whether `agent` may run `job`: the agent it is pinned to, else one of the provider asked for, if any. */
export function matches(agent: Pick<AgentRecord, 'id' | 'provider'>, job: JobConstraint): boolean {
  if (job.req_agent_id) return agent.id === job.req_agent_id;
  return !job.req_provider || agent.provider === job.req_provider;
}
