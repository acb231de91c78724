import type { Clock } from '../core/clock.js';
import { ApiError, invalid, type ErrorCode } from '../core/errors.js';
import type { Provider, VariantCatalog } from '../core/providers.js';
import type { IdGenerator } from '../core/ids.js';
import type { CompletionRequest } from '../api/schemas.js';
import { LIMITS } from '../core/limits.js';
import { hasVisibleText } from '../core/text.js';
import { unknownAgent, type Profile } from '../api/profile.js';
import type { ClusterAgents } from '../queue/cluster-agents.js';
import { IDEMPOTENCY_TTL_MS, requestHash } from '../queue/idempotency.js';
import type { JobEvents } from '../queue/job-events.js';
import { EVERY_ACCOUNT, type IdempotencyClaim, type JobRow, type Viewer } from '../core/jobs.js';
import type { JobStore } from '../queue/job-store.js';
import { matches, type JobConstraint, type Scheduler } from '../queue/scheduler.js';
import { isFinal } from '../queue/state-machine.js';
import type { WaitReason } from '../core/wait-reason.js';
import { waitReason } from '../queue/wait-reason.js';
import type { SettingsStore } from '../settings/settings-store.js';

export interface Submission {
  /** The validated body, defaults applied. */
  body: CompletionRequest;
  idempotencyKey: string | undefined;
  /** The route path, part of what an idempotency key stands for. */
  path: string;
  /** The body as the caller sent it, for the idempotency comparison. */
  rawBody: Record<string, unknown>;
  /** The API key that sent it ('admin' for the dashboard's token), for usage history. */
  apiKeyId: string;
  /**
   * Whether the client says this is its own automatic repeat of an earlier request (the
   * openai SDKs' `x-stainless-retry-count` above 0); undefined when it does not number its
   * tries. Only used without an Idempotency-Key: see `repeatKey`.
   */
  automaticRepeat?: boolean;
  /** (H) The key's account, whose queue, idempotency keys and conversations these are; null in Profile F. */
  accountId: string | null;
}

/**
 * How long after a request an SDK's automatic repeat of it finds its job: a whole hold
 * (600 s, after which the SDK may repeat a 504 or its own timeout) and its back-off.
 * Every repeat found starts the window again, for the SDK's next one.
 */
export const AUTOMATIC_REPEAT_WINDOW_MS = LIMITS.holdMs + 60_000;

/**
 * The implicit idempotency key of a request sent without one: the sender and what it asks.
 * A line feed can never occur in a header value, so no Idempotency-Key a caller sends can
 * equal it.
 */
function repeatKey(keyId: string, hash: string): string {
  return `\nrepeat ${keyId} ${hash}`;
}

/**
 * The idempotency entry a submission looks up and records, if any. Idempotency keys are the
 * account's own: another account's same key is another request. Without an
 * Idempotency-Key, a client's automatic repeat (the SDKs repeat a 504 or their own timeout)
 * finds the job its first request made instead of making another: the first try records
 * the implicit key without looking (ttlMs 0), a repeat looks back one window.
 */
function idempotencyClaim(s: Submission): IdempotencyClaim | undefined {
  if (s.idempotencyKey !== undefined) {
    const key = s.accountId === null ? s.idempotencyKey : `${s.accountId} ${s.idempotencyKey}`;
    return { key, hash: requestHash(s.path, s.rawBody), ttlMs: IDEMPOTENCY_TTL_MS, onOtherHash: 'conflict' };
  }
  if (s.automaticRepeat === undefined) return undefined;
  const hash = requestHash(s.path, s.rawBody);
  return { key: repeatKey(s.apiKeyId, hash), hash, ttlMs: s.automaticRepeat ? AUTOMATIC_REPEAT_WINDOW_MS : 0, onOtherHash: 'replace' };
}

export interface Submitted {
  job: JobRow;
  /** False when an Idempotency-Key returned an existing job. */
  created: boolean;
}

/**
 * The jobs API without HTTP: submit, read, cancel and wait. Both POST /v1/completions and
 * POST /v1/chat/completions go through `submit` and `settle`.
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

  constructor(
    private readonly store: JobStore,
    private readonly scheduler: Scheduler,
    /** Every device's agents: a job may name, and wait for, an agent of any of them. */
    private readonly cluster: ClusterAgents,
    private readonly settings: SettingsStore,
    private readonly events: JobEvents,
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
  }

  async submit(s: Submission): Promise<Submitted> {
    const b = s.body;
    // A chat cannot take a prompt a person would not see; typing one would look to the agent
    // like a composer that refuses text, and set a healthy account aside.
    if (!hasVisibleText(b.prompt)) {
      throw invalid('prompt', 'prompt has no visible text: it is empty, or only spaces, line breaks or invisible characters.');
    }
    const constraint = await this.constraintOf(b, s.accountId);
    this.checkVariant(b.provider, b.variant);
    checkCallbackUrl(b.callback_url);
    if (Buffer.byteLength(JSON.stringify(b.metadata)) > LIMITS.metadataBytes) {
      throw invalid('metadata', `metadata must be at most ${LIMITS.metadataBytes} bytes as JSON.`);
    }
    const refusal = !b.wait && b.callback_url === null ? this.whyCannotStartNow(constraint) : undefined;
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
        timeout_ms: b.timeout_ms,
        deadline_at: now + b.deadline_ms,
        max_attempts: LIMITS.maxAttempts,
        callback_url: b.callback_url,
        metadata: JSON.stringify(b.metadata),
        created_at: now,
        api_key_id: s.apiKeyId,
        account_id: s.accountId,
        variant: b.variant,
      },
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
  async get(id: string, viewer: Viewer): Promise<JobRow> {
    const job = await this.store.get(id);
    if (!job || (viewer !== EVERY_ACCOUNT && job.account_id !== viewer)) throw new ApiError('NOT_FOUND', `No job ${id}.`);
    return job;
  }

  /** `queue_position` of a queued job, as the profile counts it. */
  async queuePosition(job: JobRow): Promise<number | undefined> {
    if (job.status !== 'queued') return undefined;
    return this.profile.queuePosition === 'count' ? this.store.queuedCount(job.account_id) : this.store.queuePosition(job);
  }

  agentName(job: JobRow): string | null {
    return job.agent_id ? (this.cluster.get(job.agent_id)?.name ?? null) : null;
  }

  /** The scheduler hears of the move from the store, and stops the job's agent if it was running. */
  async cancel(id: string, viewer: Viewer): Promise<JobRow> {
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
  waitFor(job: JobRow, holdMs: number, signal?: AbortSignal, endsEarly = false): Promise<JobRow> {
    if (isFinal(job.status) || holdMs <= 0 || this.closed) return Promise.resolve(job);
    const endsAt = this.clock.now() + holdMs;
    return new Promise((resolve) => {
      let ended = false;
      let current = job;
      const done = (latest: JobRow) => {
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
        const until = this.reasonFor(current).until;
        if (until !== null && until >= endsAt) done(current);
      };
      const onAbort = () => {
        this.store.get(job.id).then(
          (latest) => done(latest ?? job),
          () => done(job),
        );
      };
      const unsubscribe = this.events.subscribe(job.id, (latest) => {
        current = latest;
        if (isFinal(latest.status)) done(latest);
        else recheck();
      });
      // The job may have become final between the caller's read and this subscription. If
      // this read fails, the hold goes on as it is: an event or the timer ends it.
      this.store.get(job.id).then(
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

  /** How long a request may hold for `job`: min(time left to its deadline, 600 000 ms). */
  holdFor(job: JobRow): number {
    return Math.min(job.deadline_at - this.clock.now(), LIMITS.holdMs);
  }

  /**
   * The outcome of a `wait: true` submission: the job if it succeeded, else the error the
   * contract names for how it ended (or for a hold that ended first).
   */
  async outcome(job: JobRow): Promise<JobRow> {
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
        const never = job.attempts === 0 ? ` It never started: ${this.profile.toldWhy(this.reasonFor(job))}.` : '';
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
  waitReason(job: JobRow): WaitReason | null {
    return job.status === 'queued' ? this.reasonFor(job) : null;
  }

  private reasonFor(job: JobConstraint): WaitReason {
    return waitReason(job, { cluster: this.cluster, scheduler: this.scheduler, settings: this.settings.get() });
  }

  /** Ends every hold now (at shutdown): callers get the job as it stands. */
  close(): void {
    this.closed = true;
    for (const stop of this.stopHearing) stop();
    for (const hold of [...this.holds]) hold.end();
  }

  /**
   * Resolves which agents may run the job, refusing constraints that can never be met.
   * A continued conversation is pinned to the agent that owns it.
   */
  private async constraintOf(b: CompletionRequest, accountId: string | null): Promise<JobConstraint> {
    if (b.mode === 'continue' && b.conversation_ref === null) {
      throw invalid('conversation_ref', 'mode "continue" needs the conversation_ref of an earlier completion.');
    }
    if (b.mode === 'new' && b.conversation_ref !== null) {
      throw invalid('conversation_ref', 'conversation_ref is only accepted with mode "continue".');
    }
    let constraint: JobConstraint = { req_provider: b.provider, req_agent_id: b.agent_id };
    if (b.agent_id !== null) {
      const agent = this.cluster.get(b.agent_id);
      if (!agent) throw invalid('agent_id', unknownAgent(b.agent_id));
      if (b.provider !== null && agent.provider !== b.provider) {
        throw invalid('agent_id', this.profile.agentOfOtherProvider(b.agent_id, agent.provider, b.provider));
      }
      constraint = { req_provider: agent.provider, req_agent_id: agent.id };
    }
    if (b.conversation_ref !== null) {
      const conversation = await this.store.conversation(b.conversation_ref);
      // Another account's conversation is as unknown as a made-up one.
      if (!conversation || conversation.account_id !== accountId) throw invalid('conversation_ref', 'Unknown conversation_ref.');
      if (!this.cluster.get(conversation.agent_id)) {
        throw invalid('conversation_ref', 'The agent that held this conversation was removed; start a new one.');
      }
      if (b.provider !== null && conversation.provider !== b.provider) {
        throw invalid('provider', `This conversation belongs to ${conversation.provider}, not ${b.provider}.`);
      }
      if (b.agent_id !== null && conversation.agent_id !== b.agent_id) {
        throw invalid('agent_id', 'This conversation belongs to another agent.');
      }
      constraint = { req_provider: conversation.provider, req_agent_id: conversation.agent_id };
    }
    return constraint;
  }

  /**
   * A variant needs its provider, and must be one its pack lists (decisions.md); `field` is
   * where the caller wrote it (chat completions write it in `model`).
   */
  checkVariant(provider: Provider | null, variant: string | null, field = 'variant'): void {
    if (variant === null) return;
    if (provider === null) throw invalid(field, 'variant needs provider: a variant is a model or mode of one provider.');
    const known = this.variants(provider);
    if (!known.includes(variant)) {
      throw invalid(field, `${provider} has no variant "${variant}"; its variants: ${known.length > 0 ? known.join(', ') : 'none'}.`);
    }
  }

  /**
   * For `wait: false` without `callback_url`: the 503 of a job that cannot start now on any
   * device, if it cannot. NO_DEVICE_ONLINE when the agents are paused, or no device that has
   * agents is online (with none anywhere, there is no device to be online: NO_AGENT_AVAILABLE).
   */
  private whyCannotStartNow(constraint: JobConstraint): ApiError | undefined {
    const provider = constraint.req_provider;
    const details = provider ? { provider } : undefined;
    if (this.settings.get().paused) {
      return new ApiError('NO_DEVICE_ONLINE', 'The agents are paused; resume them to run jobs.');
    }
    const online = this.cluster.online();
    if (online.length === 0 && this.cluster.devices().some((d) => d.agents.length > 0)) {
      return new ApiError('NO_DEVICE_ONLINE', 'No device with agents is online; start ChatBridge on one of them.');
    }
    const ready = online.filter((a) => a.ready && matches(a, constraint));
    if (ready.length === 0) {
      return new ApiError('NO_AGENT_AVAILABLE', `No ${provider ? `${provider} ` : ''}agent is free to start the job now.`, details);
    }
    if (!ready.some((a) => this.scheduler.underCaps(a))) {
      return new ApiError('PROVIDER_RATE_LIMITED', 'The hourly cap is used up for every free agent that could run the job.', details);
    }
    return undefined;
  }

  /** Cancels the queued jobs of disabled accounts (`accounts disable`); returns how many. */
  async cancelDisabledAccounts(): Promise<number> {
    const ids = await this.store.queuedOfDisabledAccounts();
    for (const id of ids) await this.store.cancel(id, this.clock.now());
    return ids.length;
  }
}

function checkCallbackUrl(url: string | null): void {
  if (url === null) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('callback_url', 'callback_url must be an absolute https:// URL.');
  }
  if (parsed.protocol !== 'https:') throw invalid('callback_url', 'callback_url must use https://.');
  if (parsed.username || parsed.password) throw invalid('callback_url', 'callback_url must not carry credentials.');
}
