import type { Clock, TimerHandle } from '../core/clock.js';
import { SITE_CHANGED_DETAIL } from '../core/agent.js';
import type { QueuedJob } from '../core/jobs.js';
import type { AgentPool } from './agent-pool.js';
import type { ClusterAgents } from './cluster-agents.js';
import type { JobStore } from './job-store.js';
import { matches } from './scheduler.js';
import { OneAtATime } from '../core/one-at-a-time.js';
import type { AttachmentCatalog } from '../core/attachments.js';

/**
 * How long a job waits for a look to heal one of its agents before it fails: less than the
 * first look of an agent just set aside (15 s, RECHECK_DELAYS_MS), so the caller hears in
 * seconds, and enough for a look already planned to come first.
 */
export const SET_ASIDE_GRACE_MS = 10_000;

/** What every agent able to run a job is set aside with. */
interface SiteChange {
  agentId: string;
  provider: string;
  /** The agent's own words: "Claude: cannot find the composer (the page loaded without it)." */
  detail: string;
}

/**
 * Fails fast the jobs that only agents set aside with a changed site could run (issue 18 §4):
 * after SET_ASIDE_GRACE_MS without a look healing one of them, such a job ends with 502
 * `PROVIDER_UI_CHANGED` naming the control, instead of waiting to its deadline for a fix
 * that takes a person. The state machine has no queued → failed: the job is dispatched to
 * one of those agents and its attempt recorded as the changed page, without running, so
 * `details.attempts` says what the agent found. Agents of other devices (a shared database)
 * do not say why they are set aside, so a job one of them could run keeps waiting.
 */
export class SetAsideJobs {
  /** When each such job was first seen with every agent for it set aside. */
  private readonly since = new Map<string, number>();
  private timer: TimerHandle | null = null;
  private readonly sweeps: OneAtATime;
  private readonly stopHearing: (() => void)[];

  constructor(
    private readonly store: JobStore,
    private readonly pool: AgentPool,
    private readonly cluster: ClusterAgents,
    private readonly clock: Clock,
    onError: (error: Error) => void,
    /** What each provider's site takes as files: a job's files narrow the agents that may run it. */
    private readonly attachmentRules?: AttachmentCatalog,
  ) {
    this.sweeps = new OneAtATime(() => this.sweepQueue(), onError);
    this.stopHearing = [
      pool.onChange(() => this.sweep()),
      store.onEvent(({ job }) => {
        if (job.status === 'queued') this.sweep();
      }),
    ];
  }

  stop(): void {
    for (const stop of this.stopHearing) stop();
    this.timer?.cancel();
    this.timer = null;
  }

  /** Looks at the queue again; calls meanwhile share one more sweep after it. */
  sweep(): void {
    void this.sweeps.run();
  }

  private async sweepQueue(): Promise<void> {
    // The common case costs no read of the queue: no agent here is set aside for a changed site.
    if (!this.pool.list().some((a) => this.siteChangeOf(a.id) !== null)) {
      this.since.clear();
      return;
    }
    const now = this.clock.now();
    const seen = new Set<string>();
    let next = Infinity;
    for (const job of await this.store.queuedInOrder()) {
      const change = this.setAsideFor(job);
      if (!change) continue;
      seen.add(job.id);
      const since = this.since.get(job.id) ?? now;
      this.since.set(job.id, since);
      if (now - since >= SET_ASIDE_GRACE_MS) await this.fail(job.id, change, now);
      else next = Math.min(next, since + SET_ASIDE_GRACE_MS);
    }
    for (const id of [...this.since.keys()]) if (!seen.has(id)) this.since.delete(id);
    this.timer?.cancel();
    this.timer = Number.isFinite(next) ? this.clock.setTimer(() => this.sweep(), Math.max(0, next - this.clock.now())) : null;
  }

  /** The change every agent that may run `job` is set aside with; null while one of them could take it. */
  private setAsideFor(job: QueuedJob): SiteChange | null {
    const candidates = this.cluster
      .devices()
      .flatMap((d) => d.agents)
      .filter((a) => matches(a, job, this.attachmentRules));
    let first: SiteChange | null = null;
    for (const agent of candidates) {
      const detail = this.siteChangeOf(agent.id);
      if (detail === null) return null;
      first ??= { agentId: agent.id, provider: agent.provider, detail };
    }
    return first;
  }

  /** What a local agent set aside for a changed site says of it; null for any other state. */
  private siteChangeOf(id: string): string | null {
    if (this.pool.state(id) !== 'error') return null;
    const detail = this.pool.liveAgent(id)?.detail?.() ?? '';
    return detail.startsWith(SITE_CHANGED_DETAIL) ? detail.slice(SITE_CHANGED_DETAIL.length) : null;
  }

  private async fail(jobId: string, change: SiteChange, now: number): Promise<void> {
    const [dispatched] = await this.store.dispatch([{ jobId, agentId: change.agentId, provider: change.provider }], now);
    if (!dispatched) return; // it left the queue meanwhile
    await this.store.endAttempt(
      jobId,
      dispatched.attempts,
      { outcome: 'failed', errorCode: 'PROVIDER_UI_CHANGED', detail: `${change.detail} Every agent for it is set aside until its page works again.`, retryElsewhere: false },
      now,
    );
    this.since.delete(jobId);
  }
}
