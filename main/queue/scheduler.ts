import type { Clock, TimerHandle } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { VariantCatalog } from '../core/providers.js';
import { filesRefused, type AttachmentCatalog, type AttachmentMeta } from '../core/attachments.js';
import type { Settings } from '../settings/settings-store.js';
import type { AgentPool, AgentRecord } from './agent-pool.js';
import { Attempts } from './attempts.js';
import { capsOf, HourlyCapGate } from './hourly-caps.js';
import { variantName } from './variant-caps.js';
import type { HourlyUsage } from './hourly-usage.js';
import type { AttemptRow, Claim, JobRow, StoreEvent } from '../core/jobs.js';
import type { JobStore } from './job-store.js';
import { roundRobinByAccount } from './queue-order.js';
import { NOT_COLLECTED } from './retry-policy.js';
import type { RotationPicker } from './rotation.js';
import { VariantOffers } from './variant-offers.js';
import { OneAtATime } from '../core/one-at-a-time.js';

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

/** Which agents a job may run on. A continued conversation was pinned to its agent at submission. */
export interface JobConstraint {
  req_provider: string | null;
  req_agent_id: string | null;
  /** The variant asked for: agents known not to offer it are passed over while another may. */
  variant?: string | null;
  /** The job's files: only agents whose provider's site takes them all may run it. */
  attachments?: readonly AttachmentMeta[];
}

/**
 * Matches queued jobs with eligible agents and starts each attempt (Attempts runs it and
 * turns what the agent returns or throws into the job's next state). Besides the attempts'
 * own timeouts, it owns the queue's timers: the earliest deadline, and the moment a full
 * hourly cap frees a slot. It hears the store's events: a new job arms the deadline timer and
 * wakes a round, a job taken from its agent (cancelled, expired) stops the attempt, a job
 * back in the queue wakes a round.
 */
export class Scheduler {
  /** The dispatch rounds: never two at once; the wakes of one turn of the event loop share one. */
  private readonly rounds: OneAtATime;
  private readonly attempts: Attempts;
  /** Stopping: no round dispatches any more; the attempts under way have the grace to end. */
  private stopped = false;
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
    ids: IdGenerator,
    /** A dispatch round, or a write of what an agent sent, that failed (the store out of reach). */
    onError: (error: Error) => void,
    /** What each agent's account is known to offer of its provider's variants. */
    readonly offers = new VariantOffers(),
    /** The packs' variants: a long-thinking one's attempt is collected, never sent again (whenTimeRunsOut). */
    variants: VariantCatalog = () => [],
    /** What each provider's site takes as files (the packs'): a job's files route it. */
    private readonly attachmentRules: AttachmentCatalog = () => ({ types: null, maxFileBytes: null, maxFiles: null }),
  ) {
    this.rounds = new OneAtATime(() => this.dispatchRound(), onError, 'turn');
    this.attempts = new Attempts(store, pool, settings, clock, ids, onError, offers, variants, (job) => this.candidates(job));
    this.caps = new HourlyCapGate(usage, pool, clock, () => this.wake());
    pool.onChange(() => this.wake());
    store.onEvent((event) => this.onStoreEvent(event));
  }

  /**
   * Expires what passed its deadline while the service was down, takes up the answers left to
   * collect (each waits for its agent), removes the attempt files a crash left, then starts dispatching.
   */
  async start(): Promise<void> {
    await this.onDeadline();
    await this.attempts.sweepLeftFiles();
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
      const writing = this.attempts.writing;
      if (!this.rounds.busy && writing.length === 0) return;
      await Promise.allSettled([this.rounds.idle(), ...writing]);
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
      this.attempts.abort(job.id, job.status);
      this.uncollected.delete(job.id);
    } else if (from === 'dispatched' && job.status === 'queued') {
      this.wake();
    }
  }

  /** Whether an attempt is under way on `agentId` (its result not yet recorded). */
  isRunningOn(agentId: string): boolean {
    return this.attempts.isRunningOn(agentId);
  }

  /**
   * Agents that match a job's constraint, eligible or not, in the user's order.
   */
  candidates(job: JobConstraint): AgentRecord[] {
    return this.pool.list().filter((a) => matches(a, job, this.attachmentRules));
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
    // What each attempt told of its prompt is in the store before the store decides what may be sent again.
    const { ended, toCollect } = await this.attempts.stop(graceMs);
    const moved = await this.store.requeueDispatched(this.clock.now(), 'stopped');
    return {
      ended,
      requeued: moved.filter((m) => m.job.status === 'queued').length,
      toCollect: toCollect + this.uncollected.size,
      notCollected: moved.filter((m) => m.job.status === 'failed').length,
    };
  }

  /** How many attempts are under way: what a stop's grace waits for. */
  get attemptsUnderWay(): number {
    return this.attempts.count;
  }

  /** Ends a stop's grace now: the attempts still under way are cut at once. */
  endGrace(): void {
    this.attempts.endGrace();
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
      const matching = this.offering(job, ready.filter((a) => matches(a, job, this.attachmentRules)));
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
          await this.attempts.endAttempt(job.id, job.attempts, { outcome: 'agent_lost', errorCode: 'AGENT_LOST', detail: 'The agent went away as the job was dispatched.' });
          continue;
        }
        this.attempts.start(job, agent);
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
        await this.attempts.endAttempt(jobId, attempt.attempt, { ...NOT_COLLECTED, detail });
        continue;
      }
      ready = ready.filter((a) => a.id !== agent.id);
      this.attempts.resume(job, attempt, agent);
    }
    return ready;
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

  private armDeadline(at: number): void {
    if (this.stopped || (this.deadlineTimer && this.deadlineTimer.at <= at)) return;
    this.deadlineTimer?.handle.cancel();
    this.deadlineTimer = { at, handle: this.clock.setTimer(() => void this.attempts.written(this.onDeadline()), at - this.clock.now()) };
  }

  /** Expires what is due (its running attempts stop on the store's events), then waits for the next deadline. */
  private async onDeadline(): Promise<void> {
    this.deadlineTimer = null;
    await this.store.expireDue(this.clock.now());
    const next = await this.store.nextDeadline();
    if (next !== null) this.armDeadline(next);
  }
}

/**
 * Whether `agent` may run `job`: the agent it is pinned to, else one of the provider asked
 * for, if any; and, when the job has files and `rules` are given, only an agent whose
 * provider's site takes them all (the provider asked for was held to them at submission).
 */
export function matches(agent: Pick<AgentRecord, 'id' | 'provider'>, job: JobConstraint, rules?: AttachmentCatalog): boolean {
  if (job.req_agent_id ? agent.id !== job.req_agent_id : job.req_provider && agent.provider !== job.req_provider) return false;
  return !rules || !job.attachments?.length || filesRefused(rules(agent.provider), job.attachments) === null;
}
