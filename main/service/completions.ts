import type { Clock } from '../core/clock.js';
import { ApiError, invalid, type ErrorCode } from '../core/errors.js';
import type { Provider, VariantCatalog } from '../core/providers.js';
import type { IdGenerator } from '../core/ids.js';
import { LIMITS } from '../core/limits.js';
import { hasVisibleText } from '../core/text.js';
import type { Profile } from '../contract/profile.js';
import type { ClusterAgents } from '../queue/cluster-agents.js';
import { EVERY_ACCOUNT, type JobView, type Viewer } from '../core/jobs.js';
import type { JobStore } from '../queue/job-store.js';
import type { Scheduler } from '../queue/scheduler.js';
import { isFinal } from '../queue/state-machine.js';
import type { WaitReason } from '../core/wait-reason.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { Submission, Submitted } from '../contract/completions-port.js';
import { JobPlacement } from './job-placement.js';
import { followJob } from './job-follow.js';
import type { Follower, StreamPosition } from '../contract/job-stream.js';
import { checkCallbackUrl, idempotencyClaim, jobTimes } from './submission.js';

/**
 * The jobs API without HTTP: submit, read, cancel and wait. POST /v1/completions with
 * `wait: true` and POST /v1/chat/completions both go through `submitAndWait`.
 */
export class Completions {
  /**
   * The holds waiting: `end` is called at shutdown, `recheck` when agents or settings change.
   * A set rather than listeners on one AbortSignal: thousands of holds are normal, and a
   * signal warns past ten listeners.
   */
  private readonly holds = new Set<{ end(): void; recheck(): void }>();
  private closed = false;
  private readonly stopHearing: (() => void)[];
  private readonly placement: JobPlacement;

  constructor(
    private readonly store: JobStore,
    scheduler: Scheduler,
    /** Every device's agents: a job may name, and wait for, an agent of any of them. */
    private readonly cluster: ClusterAgents,
    private readonly settings: SettingsStore,
    private readonly profile: Profile,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** The variant ids of each provider's pack, that a job may ask for. */
    private readonly variants: VariantCatalog,
  ) {
    const recheck = () => {
      for (const hold of [...this.holds]) hold.recheck();
    };
    this.stopHearing = [cluster.onChange(recheck), settings.onChange(recheck)];
    this.placement = new JobPlacement(store, scheduler, cluster, settings, profile);
  }

  async submit(s: Submission): Promise<Submitted> {
    const b = s.body;
    // A chat cannot take a prompt a person would not see; typing one would look to the agent
    // like a composer that refuses text, and set a healthy account aside.
    if (!hasVisibleText(b.prompt)) {
      throw invalid('prompt', 'prompt has no visible text: it is empty, or only spaces, line breaks or invisible characters.');
    }
    const constraint = await this.placement.constraintOf(b, s.accountId);
    this.checkVariant(b.provider, b.variant, s.accountId);
    const times = jobTimes(b, this.variants);
    checkCallbackUrl(b.callback_url);
    if (Buffer.byteLength(JSON.stringify(b.metadata)) > LIMITS.metadataBytes) {
      throw invalid('metadata', `metadata must be at most ${LIMITS.metadataBytes} bytes as JSON.`);
    }
    const refusal = !b.wait && b.callback_url === null ? this.placement.whyCannotStartNow({ ...constraint, variant: b.variant }) : undefined;
    const now = this.clock.now();
    const idempotency = idempotencyClaim(s);
    const result = await this.store.submit({
      job: {
        id: this.ids.job(now),
        prompt: b.prompt,
        req_provider: constraint.req_provider,
        req_agent_id: constraint.req_agent_id,
        conversation_in: b.conversation_ref,
        priority: b.priority,
        timeout_ms: times.timeout_ms,
        deadline_at: now + times.deadline_ms,
        max_attempts: LIMITS.maxAttempts,
        callback_url: b.callback_url,
        metadata: JSON.stringify(b.metadata),
        created_at: now,
        api_key_id: s.apiKeyId,
        account_id: s.accountId,
        variant: b.variant,
      },
      // Stored beside the job in its transaction; nothing here keeps the buffers after.
      attachments: s.attachments ?? [],
      ...(idempotency ? { idempotency } : {}),
      queuedLimit: LIMITS.queuedJobs,
      refuseNew: refusal !== undefined && !this.profile.keepsRefusedJobs,
    });
    switch (result.kind) {
      case 'found':
        return { job: result.job, created: false };
      case 'conflict':
        throw new ApiError('CONFLICT', 'This Idempotency-Key was used with a different request.');
      case 'queue_full':
        throw new ApiError('FORBIDDEN', `The queue already holds ${LIMITS.queuedJobs} of your jobs.`, { limit: LIMITS.queuedJobs });
      case 'refused':
        throw refusal!;
      case 'created': {
        if (!refusal) return { job: result.job, created: true };
        // (H) The job was accepted and stays queued; the caller hears why it cannot start now.
        const { code, message, details } = refusal;
        throw new ApiError(code, `${message} The job ${result.job.id} is queued and starts when it can.`, { ...details, job_id: result.job.id });
      }
    }
  }

  /** The job, if it is the caller's: another account's job is as unknown as a made-up id (404). */
  async get(id: string, viewer: Viewer): Promise<JobView> {
    const job = await this.store.view(id);
    if (!job || (viewer !== EVERY_ACCOUNT && job.account_id !== viewer)) throw new ApiError('NOT_FOUND', `No job ${id}.`);
    return job;
  }

  /** `queue_position` of a queued job, as the profile counts it. */
  async queuePosition(job: JobView): Promise<number | undefined> {
    if (job.status !== 'queued') return undefined;
    return this.profile.queuePosition === 'count' ? this.store.queuedCount(job.account_id) : this.store.queuePosition(job);
  }

  agentName(job: JobView): string | null {
    return job.agent_id ? (this.cluster.get(job.agent_id)?.name ?? null) : null;
  }

  /** The scheduler hears of the move from the store, and stops the job's agent if it was running. */
  async cancel(id: string, viewer: Viewer): Promise<JobView> {
    await this.get(id, viewer);
    const moved = await this.store.cancel(id, this.clock.now());
    if (!moved) throw new ApiError('NOT_FOUND', `No job ${id}.`);
    return moved.job;
  }

  /**
   * Resolves with the job once it is final, or as it is when `holdMs` has passed, the
   * caller went away (`signal`) or the service is shutting down. Woken by job events.
   * `endsEarly` (a `wait: true` submission): ends, the job still queued, once its wait is
   * known to last past the hold's end (every agent for it resting until later, say), so the
   * caller learns now what it would learn then. GET ?wait=true holds as decisions.md says.
   */
  waitFor(job: JobView, holdMs: number, signal?: AbortSignal, endsEarly = false): Promise<JobView> {
    if (isFinal(job.status) || holdMs <= 0 || this.closed) return Promise.resolve(job);
    const endsAt = this.clock.now() + holdMs;
    return new Promise((resolve) => {
      let ended = false;
      let current = job;
      const done = (latest: JobView) => {
        if (ended) return;
        ended = true;
        unsubscribe();
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
        this.holds.delete(hold);
        resolve(latest);
      };
      const recheck = () => {
        if (!endsEarly || current.status !== 'queued') return;
        const until = this.placement.waitReason(current).until;
        if (until !== null && until >= endsAt) done(current);
      };
      const onAbort = () => {
        this.store.view(job.id).then(
          (latest) => done(latest ?? job),
          () => done(job),
        );
      };
      const unsubscribe = this.store.events.subscribe(job.id, (latest) => {
        current = latest;
        if (isFinal(latest.status)) done(latest);
        else recheck();
      });
      // The job may have become final between the caller's read and this subscription. If
      // this read fails, the hold goes on as it is: an event or the timer ends it.
      this.store.view(job.id).then(
        (latest) => {
          if (latest && isFinal(latest.status)) done(latest);
        },
        () => {},
      );
      const timer = this.clock.setTimer(onAbort, holdMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const hold = { end: onAbort, recheck };
      this.holds.add(hold);
      recheck();
    });
  }

  /**
   * A `wait: true` submission, whichever route sent it: submits, holds until the job is
   * final (or the hold ends, the caller goes away, the service stops), and resolves with the
   * job if it succeeded, else throws the error the contract names for how it ended.
   */
  async submitAndWait(s: Submission, signal?: AbortSignal): Promise<JobView> {
    const { job } = await this.submit(s);
    return this.outcome(await this.waitFor(job, this.holdFor(job), signal, true));
  }

  streamingOn(): boolean {
    return this.settings.get().streaming;
  }

  /** How long a request may hold for `job`: min(time left to its deadline, 600 000 ms). */
  holdFor(job: JobView): number {
    return Math.min(job.deadline_at - this.clock.now(), LIMITS.holdMs);
  }

  /**
   * The outcome of a `wait: true` submission: the job if it succeeded, else the error the
   * contract names for how it ended (or for a hold that ended first).
   */
  async outcome(job: JobView): Promise<JobView> {
    switch (job.status) {
      case 'succeeded':
        return job;
      case 'failed':
        throw new ApiError(
          (job.error_code as ErrorCode | null) ?? 'JOB_FAILED',
          job.error_message ?? 'Every allowed attempt failed.',
          this.profile.failureDetails(job, await this.store.attempts(job.id)),
        );
      case 'cancelled':
        throw new ApiError('JOB_CANCELLED', 'The job was cancelled while you waited.', this.profile.outcomeDetails(job));
      case 'expired': {
        const never = job.attempts === 0 ? ` It never started: ${this.profile.toldWhy(this.placement.waitReason(job))}.` : '';
        throw new ApiError('JOB_TIMEOUT', `The job deadline passed; it will not run again.${never}`, this.profile.outcomeDetails(job));
      }
      default: {
        const why = this.waitReason(job);
        throw new ApiError(
          'JOB_TIMEOUT',
          `The hold ended while the job is ${job.status}${why ? ` (${this.profile.toldWhy(why)})` : ''}; it continues: fetch it later with GET /v1/completions/${job.id}.`,
          this.profile.outcomeDetails(job),
        );
      }
    }
  }

  /** Why a queued job has not started; null for a job that is not queued. */
  waitReason(job: JobView): WaitReason | null {
    return job.status === 'queued' ? this.placement.waitReason(job) : null;
  }

  /**
   * Follows the caller's job (already read with `get`) for an event stream, from `from` (a
   * resumed stream's Last-Event-ID) or the start; see job-follow.ts. Ended at shutdown, as
   * holds are. Returns the function that stops following (the client went away).
   */
  follow(job: JobView, from: StreamPosition | null, follower: Follower): () => void {
    const hold = {
      end: () => {
        stop();
        this.holds.delete(hold);
        follower.end();
      },
      recheck: () => {},
    };
    this.holds.add(hold);
    const stop = followJob(this.store, job, from, {
      send: (event) => follower.send(event),
      end: (error) => {
        this.holds.delete(hold);
        follower.end(error);
      },
    });
    if (this.closed) hold.end();
    return () => {
      this.holds.delete(hold);
      stop();
    };
  }

  /** Ends every hold now (at shutdown): callers get the job as it stands. */
  close(): void {
    this.closed = true;
    for (const stop of this.stopHearing) stop();
    for (const hold of [...this.holds]) hold.end();
  }

  /** Cancels the queued jobs of disabled accounts (`accounts disable`); returns how many. */
  async cancelDisabledAccounts(): Promise<number> {
    const ids = await this.store.queuedOfDisabledAccounts();
    for (const id of ids) await this.store.cancel(id, this.clock.now());
    return ids.length;
  }

  /**
   * A variant needs its provider, and must be one its pack lists (decisions.md); `field` is
   * where the caller wrote it (chat completions write it in `model`). (H) An account may ask
   * only for the variants the operator allows: some are small quotas on the operator's plans.
   */
  checkVariant(provider: Provider | null, variant: string | null, accountId: string | null, field = 'variant'): void {
    if (variant === null) return;
    if (provider === null) throw invalid(field, 'variant needs provider: a variant is a model or mode of one provider.');
    const known = this.variants(provider).map((v) => v.id);
    if (!known.includes(variant)) {
      throw invalid(field, `${provider} has no variant "${variant}"; its variants: ${known.length > 0 ? known.join(', ') : 'none'}.`);
    }
    const allowed = this.settings.get().tenantVariants;
    if (accountId !== null && !allowed.includes(`${provider}/${variant}`)) {
      throw new ApiError(
        'FORBIDDEN',
        `${provider}/${variant} is not open to the accounts of this service; the operator allows ${allowed.length > 0 ? allowed.join(', ') : 'no variant'} (chatbridge settings variants allow).`,
        { field, allowed },
      );
    }
  }
}
