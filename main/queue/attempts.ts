import { AgentFailure, CUT_TO_COLLECT, VariantUnavailable, type Agent, type AgentResult, type SentPrompt } from '../core/agent.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { AttemptEnd, AttemptRow, JobRow } from '../core/jobs.js';
import type { VariantCatalog } from '../core/providers.js';
import type { Settings } from '../settings/settings-store.js';
import type { AgentPool, AgentRecord } from './agent-pool.js';
import { HOUR_MS } from './hourly-usage.js';
import type { JobStore } from './job-store.js';
import { attemptRecordFor, NOT_COLLECTED, whenTimeRunsOut } from './retry-policy.js';
import type { VariantOffers } from './variant-offers.js';
import { sweepStaleAttemptFolders, writeAttemptFiles, type AttemptFiles } from './attempt-files.js';

interface Running {
  agentId: string;
  attempt: number;
  /** The run's, then (once its time ran out) the collection's. */
  controller: AbortController;
  /** Where the answer can be found again, once the prompt went (AgentTask.onSent). */
  sent: SentPrompt | null;
  /** `sent` kept in the store as told, one write after the other (the address comes after the send). */
  recorded: Promise<void>;
  /** The pieces of the answer the agent told (AgentTask.onDelta), stored one after the other. */
  deltas: Promise<void>;
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

/**
 * The attempts under way, each from its start on its agent to the store's record of how it
 * ended: the run and its timeout, what the agent tells of the prompt it sent, the collection
 * of an answer by reopening its conversation, what a failure says of the agent's account
 * (a rest) and of its variants (VariantOffers). The Scheduler decides what starts; this is
 * what happens once it has, and what a clean stop does with what is still under way.
 */
export class Attempts {
  private readonly running = new Map<string, Running>();
  /** Store writes begun outside a dispatch round (an attempt's end, a deadline's expiries): Scheduler.settled waits for them. */
  private readonly writes = new Set<Promise<unknown>>();
  /** The grace is over: what the attempts still under way do now is the restart's to pick up, not written. */
  private cut = false;
  /** Ends a stop's grace early (a second Ctrl-C), or has it skipped if it has not begun. */
  private hurry: () => void = () => (this.hurried = true);
  private hurried = false;
  /** Every attempt under way (a run, and its collection), as a stop's grace waits for them. */
  private readonly underWay = new Set<Promise<void>>();

  constructor(
    private readonly store: JobStore,
    private readonly pool: AgentPool,
    private readonly settings: () => Settings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** A write of what an agent sent that failed (the store out of reach). */
    private readonly onError: (error: Error) => void,
    private readonly offers: VariantOffers,
    /** The packs' variants: a long-thinking one's attempt is collected, never sent again (whenTimeRunsOut). */
    private readonly variants: VariantCatalog,
    /** The agents that match a job, eligible or not: whether another could take its retry. */
    private readonly candidates: (job: JobRow) => AgentRecord[],
  ) {}

  /** Whether an attempt is under way on `agentId` (its result not yet recorded). */
  isRunningOn(agentId: string): boolean {
    return [...this.running.values()].some((r) => r.agentId === agentId);
  }

  /** How many attempts are under way: what a stop's grace waits for. */
  get count(): number {
    return this.underWay.size;
  }

  /** The writes under way that Scheduler.settled waits for. */
  get writing(): Promise<unknown>[] {
    return [...this.writes];
  }

  /** Removes the files of attempts a crashed process left on this machine (its folders outlive it). */
  async sweepLeftFiles(): Promise<void> {
    await sweepStaleAttemptFolders().catch(this.onError);
  }

  /** Runs the attempt the store just dispatched `job` to, on `agent`. */
  start(job: JobRow, agent: Agent): void {
    this.pool.setBusy(agent.id, true);
    this.track(this.runAttempt(job, agent));
  }

  /** Collects an answer left by a stop (or a crash) on the agent that sent its prompt. */
  resume(job: JobRow, attempt: AttemptRow, agent: Agent): void {
    this.pool.setBusy(agent.id, true);
    this.track(this.resumeCollection(job, attempt, agent));
  }

  /**
   * A stop's end of the attempts under way: they get `graceMs` on the clock to end as they
   * would (endGrace cuts it short); then each is cut as its prompt stands, and nothing they
   * do after is written. Resolves once what each told of its prompt is in the store, with
   * how many ended within the grace and how many were cut with an answer to collect.
   */
  async stop(graceMs: number): Promise<{ ended: number; toCollect: number }> {
    const under = this.running.size;
    await this.grace(graceMs);
    const ended = under - this.running.size;
    this.cut = true;
    const cut = [...this.running.values()];
    this.running.clear();
    for (const running of cut) running.controller.abort((running.sent?.conversation ? CUT_TO_COLLECT : 'shutdown') satisfies AbortReason);
    await Promise.all(cut.map((running) => running.recorded));
    return { ended, toCollect: cut.filter((running) => running.sent?.conversation).length };
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

  /** A collection left by a stop (or a crash), under the attempt that sent the prompt. */
  private async resumeCollection(job: JobRow, attempt: AttemptRow, agent: Agent): Promise<void> {
    const sent = { conversation: attempt.sent_conversation, turnsBefore: attempt.sent_turns_before ?? 0 };
    const running: Running = { agentId: agent.id, attempt: attempt.attempt, controller: new AbortController(), sent, recorded: Promise.resolve(), deltas: Promise.resolve() };
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
    const running: Running = { agentId: agent.id, attempt, controller, sent: null, recorded: Promise.resolve(), deltas: Promise.resolve() };
    this.running.set(job.id, running);
    const timeout = this.clock.setTimer(() => this.timeRanOut(job, running, agent), job.timeout_ms);
    // The job's files, written from the store for this attempt alone; removed however it ends.
    let files: AttemptFiles | undefined;
    try {
      const conversation = job.conversation_in ? ((await this.store.conversation(job.conversation_in))?.address ?? null) : null;
      // Counted with the writes (Scheduler.settled waits for them): the files are read from the store.
      files = await this.written(writeAttemptFiles(this.store, job, attempt));
      if (controller.signal.aborted) throw controller.signal.reason;
      const result = await agent.run({
        prompt: job.prompt,
        conversation,
        signal: controller.signal,
        label: `${job.id}-${attempt}`,
        variant: job.variant,
        attachments: files.files,
        onSent: (sent) => this.heardSent(job.id, running, sent),
        onDelta: (text) => this.heardDelta(job.id, running, text),
      });
      if (job.variant) this.offers.answeredUnder(agent.id, job.variant);
      // The pieces go before the success that ends them: a follower hears them first.
      await running.deltas;
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
      if (files) await this.written(files.remove()).catch(this.onError);
      if (this.running.get(job.id) === running) this.running.delete(job.id);
      this.pool.jobDone(agent.id, this.settings().pauseMs);
    }
  }

  /**
   * The agent tells where the answer to the prompt it sent can be found again: kept in memory
   * for a collection in this run, and in the store, in the order told, for one after a
   * restart. Once a stop has cut the attempt, what it tells is the restart's no more, and a
   * prompt not gone yet stays unsent.
   */
  private heardSent(jobId: string, running: Running, sent: SentPrompt): Promise<void> {
    if (this.cut) return Promise.reject(new Error('The service is stopping: the prompt is not sent.'));
    running.sent = sent;
    const kept = running.recorded.then(() => this.written(this.store.recordSent(jobId, running.attempt, sent)));
    running.recorded = kept.catch(this.onError);
    return kept.catch((error: Error) => {
      throw new Error(`The job's record could not keep that its prompt was going, so it was not sent: ${error.message}`);
    });
  }

  /**
   * The agent tells a piece of the answer it is sure of: stored under this attempt, in the
   * order told (the store refuses it once the attempt is closed). A piece told after a stop
   * cut the attempt is nobody's any more.
   */
  private heardDelta(jobId: string, running: Running, text: string): void {
    if (this.cut || text === '') return;
    running.deltas = running.deltas.then(() => this.written(this.store.appendDelta(jobId, running.attempt, text))).then(() => {}, this.onError);
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
   * A result that comes after cancel, deadline or timeout closed the attempt is dropped by the
   * store; one that comes after a stop's grace is not written (the stop moved the job).
   */
  async endAttempt(jobId: string, attempt: number, end: AttemptEnd): Promise<void> {
    if (this.cut) return;
    await this.written(this.store.endAttempt(jobId, attempt, end, this.clock.now()));
  }

  /** An attempt under way, as a stop's grace waits for it. */
  private track(attempt: Promise<void>): void {
    this.underWay.add(attempt);
    void attempt.finally(() => this.underWay.delete(attempt));
  }

  /** `write`, counted among those Scheduler.settled waits for until it ends. */
  async written<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    try {
      return await write;
    } finally {
      this.writes.delete(write);
    }
  }

  /** Stops the attempt under way for `jobId`, if any, telling its agent why; what it does after is not its to write. */
  abort(jobId: string, reason: AbortReason): void {
    const running = this.running.get(jobId);
    if (!running) return;
    this.running.delete(jobId);
    running.controller.abort(reason);
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
