import { AgentFailure, type Agent } from '../core/agent.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Settings } from '../settings/settings-store.js';
import type { AgentPool, AgentRecord } from './agent-pool.js';
import { HOUR_MS, type HourlyUsage } from './hourly-usage.js';
import type { JobEvents } from './job-events.js';
import type { AttemptEnd, JobRow, Moved } from '../core/jobs.js';
import type { SqliteJobStore as JobStore } from './sqlite/job-store.js';
import { roundRobinByAccount } from './queue-order.js';
import { attemptRecordFor } from './retry-policy.js';
import type { RotationPicker } from './rotation.js';

interface Running {
  agentId: string;
  attempt: number;
  controller: AbortController;
}

/** Why an attempt was stopped from outside, as `signal.reason` tells the agent. */
export type AbortReason = 'cancelled' | 'timed_out' | 'expired' | 'shutdown';

/** Which agents a job may run on. A continued conversation was pinned to its agent at submission. */
export interface JobConstraint {
  req_provider: string | null;
  req_agent_id: string | null;
}

/**
 * Matches queued jobs with eligible agents, runs each attempt, and turns what the agent
 * returns or throws into the job's next state. It owns every timer of the queue: per-attempt
 * timeouts, the earliest deadline, and the moment a full hourly cap frees a slot.
 */
export class Scheduler {
  private readonly running = new Map<string, Running>();
  private wakeScheduled = false;
  private stopped = false;
  private deadlineTimer: { at: number; handle: TimerHandle } | null = null;
  private capTimer: { at: number; handle: TimerHandle } | null = null;
  /** The account whose job was dispatched last: the next round starts with the account after it. */
  private lastServed: string | null | undefined = undefined;

  constructor(
    private readonly store: JobStore,
    private readonly pool: AgentPool,
    private readonly usage: HourlyUsage,
    private readonly rotation: RotationPicker,
    private readonly events: JobEvents,
    private readonly settings: () => Settings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    pool.onChange(() => this.wake());
  }

  /** Expires what passed its deadline while the service was down, then starts dispatching. */
  start(): void {
    this.onDeadline();
    this.wake();
  }

  /** Asks for a dispatch round soon; calls in one turn of the event loop share one round. */
  wake(): void {
    if (this.wakeScheduled || this.stopped) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      if (!this.stopped) this.dispatchRound();
    });
  }

  /** A job was accepted: tell the listeners (it is queued), keep the deadline timer on the earliest deadline and try to run it. */
  jobAdded(job: JobRow): void {
    this.events.publish(job);
    this.armDeadline(job.deadline_at);
    if (this.candidates(job).some((a) => this.pool.isReady(a.id))) this.wake();
  }

  /** A job left `dispatched` by cancel: tell its agent to stop. */
  jobCancelled(moved: Moved): void {
    if (moved.from === 'dispatched') this.abort(moved.job.id, 'cancelled');
    this.events.publish(moved.job);
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

  /** Whether `agent` could take one more job under its own, its provider's and the global cap. */
  underCaps(agent: AgentRecord, settings = this.settings()): boolean {
    return (
      this.usage.allows({ agentId: agent.id }, agent.cap_per_hour) &&
      this.usage.allows({ provider: agent.provider }, settings.providerCaps[agent.provider]) &&
      this.usage.allows('global', settings.globalCap)
    );
  }

  /**
   * At shutdown: running attempts are aborted and their jobs go back to the queue (with an
   * `agent_lost` attempt), so a restart picks them up.
   */
  stop(): void {
    this.stopped = true;
    this.deadlineTimer?.handle.cancel();
    this.capTimer?.handle.cancel();
    for (const running of this.running.values()) running.controller.abort('shutdown' satisfies AbortReason);
    this.running.clear();
    for (const moved of this.store.requeueDispatched(this.clock.now())) this.events.publish(moved.job);
  }

  /**
   * Matches queued jobs, in dispatch order (each account's by priority then age, the
   * accounts in turn: roundRobinByAccount), with ready agents under their caps. All the
   * dispatches of one round are one transaction (one fsync), then the attempts start.
   */
  private dispatchRound(): void {
    const settings = this.settings();
    if (settings.paused) return;
    let ready = this.pool.list().filter((a) => this.pool.isReady(a.id));
    if (ready.length === 0) return;
    let blockedByCap = false;
    const now = this.clock.now();
    const started = this.store.batch(() => {
      const out: [JobRow, Agent][] = [];
      for (const job of roundRobinByAccount(this.store.queuedInOrder(), this.lastServed)) {
        const matching = ready.filter((a) => matches(a, job));
        if (matching.length === 0) continue;
        const allowed = matching.filter((a) => this.underCaps(a, settings));
        if (allowed.length === 0) {
          blockedByCap = true;
          continue;
        }
        const chosen = this.rotation.pick(settings.rotation, allowed);
        const agent = this.pool.liveAgent(chosen.id)!;
        out.push([this.store.dispatch(job.id, agent.id, agent.provider, now), agent]);
        this.usage.record(agent.id, agent.provider, now);
        this.lastServed = job.account_id;
        ready = ready.filter((a) => a !== chosen);
        if (ready.length === 0) break;
      }
      return out;
    });
    for (const [job, agent] of started) {
      this.pool.setBusy(agent.id, true);
      this.events.publish(job);
      void this.runAttempt(job, agent);
    }
    if (blockedByCap) this.armCapWake(settings);
  }

  private async runAttempt(job: JobRow, agent: Agent): Promise<void> {
    const controller = new AbortController();
    const attempt = job.attempts;
    this.running.set(job.id, { agentId: agent.id, attempt, controller });
    const timeout = this.clock.setTimer(() => {
      this.abort(job.id, 'timed_out');
      this.endAttempt(job.id, attempt, { outcome: 'timed_out', errorCode: 'ATTEMPT_TIMEOUT' });
    }, job.timeout_ms);
    const conversation = job.conversation_in ? (this.store.conversation(job.conversation_in)?.address ?? null) : null;
    try {
      const result = await agent.run({ prompt: job.prompt, conversation, signal: controller.signal, label: `${job.id}-${attempt}` });
      this.endAttempt(job.id, attempt, {
        outcome: 'succeeded',
        response: result.text,
        conversationRef: job.conversation_in ?? this.ids.conversation(),
        conversationAddress: result.conversation,
      });
    } catch (error) {
      const failure =
        error instanceof AgentFailure ? error : new AgentFailure('agent_lost', error instanceof Error ? error.message : String(error));
      if (failure.kind === 'rate_limited') {
        this.pool.coolDown(agent.id, failure.retryAt ?? this.clock.now() + HOUR_MS);
      }
      const { outcome, errorCode } = attemptRecordFor(failure.kind);
      const retryElsewhere = this.candidates(job).some((a) => a.id !== agent.id && ['idle', 'busy'].includes(this.pool.state(a.id)));
      if (outcome !== 'succeeded' && outcome !== 'cancelled') this.endAttempt(job.id, attempt, { outcome, errorCode, detail: failure.message, retryElsewhere });
    } finally {
      timeout.cancel();
      const running = this.running.get(job.id);
      if (running?.attempt === attempt && running.agentId === agent.id) this.running.delete(job.id);
      this.pool.jobDone(agent.id, this.settings().pauseMs);
    }
  }

  private endAttempt(jobId: string, attempt: number, end: AttemptEnd): void {
    if (this.stopped) return;
    const moved = this.store.endAttempt(jobId, attempt, end, this.clock.now());
    if (!moved) return; // already closed by cancel, deadline or timeout
    this.events.publish(moved.job);
    if (moved.job.status === 'queued') this.wake();
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
    this.deadlineTimer = { at, handle: this.clock.setTimer(() => this.onDeadline(), at - this.clock.now()) };
  }

  private onDeadline(): void {
    this.deadlineTimer = null;
    for (const moved of this.store.expireDue(this.clock.now())) {
      if (moved.from === 'dispatched') this.abort(moved.job.id, 'expired');
      this.events.publish(moved.job);
    }
    const next = this.store.nextDeadline();
    if (next !== null) this.armDeadline(next);
  }

  /** Some job waits only for an hourly cap: wake when the earliest full cap frees a slot. */
  private armCapWake(settings: Settings): void {
    const slots: (number | null)[] = [this.usage.nextSlotAt('global', settings.globalCap)];
    for (const a of this.pool.list()) {
      slots.push(this.usage.nextSlotAt({ agentId: a.id }, a.cap_per_hour));
      slots.push(this.usage.nextSlotAt({ provider: a.provider }, settings.providerCaps[a.provider]));
    }
    const at = Math.min(...slots.filter((s): s is number => s !== null));
    if (!Number.isFinite(at) || (this.capTimer && this.capTimer.at <= at && this.capTimer.at > this.clock.now())) return;
    this.capTimer?.handle.cancel();
    this.capTimer = {
      at,
      handle: this.clock.setTimer(() => {
        this.capTimer = null;
        this.wake();
      }, at - this.clock.now()),
    };
  }
}

function matches(agent: AgentRecord, job: JobConstraint): boolean {
  if (job.req_agent_id) return agent.id === job.req_agent_id;
  return !job.req_provider || agent.provider === job.req_provider;
}
