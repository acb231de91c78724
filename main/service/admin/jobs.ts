import type { DiagnosticBundleView, JobDetail, JobSummary } from '../../contract/admin/jobs.js';
import { attemptRecords, jobObject } from '../../contract/job-object.js';
import type { DiagnosticManifest } from '../../core/diagnostics.js';
import { ApiError } from '../../core/errors.js';
import { EVERY_ACCOUNT, type JobRow, type JobView } from '../../core/jobs.js';
import { Listeners } from '../../core/listeners.js';
import { timestamp, timestampOrNull as ts } from '../../core/timestamps.js';
import { waitSentence } from '../../core/wait-reason.js';
import type { BundleFile, DiagnosticBundles } from '../../diagnostics/bundles.js';
import type { JobStore } from '../../queue/job-store.js';
import type { Completions } from '../completions.js';
import type { WebhooksConsole } from './webhooks.js';

/** From acceptance to the end in ms (the timestamps have whole seconds only); null while unfinished. */
const tookMs = (job: JobView) => (job.finished_at === null ? null : job.finished_at - job.created_at);

/**
 * The dashboard's jobs, every account's: the recent ones, one in full (its prompt, attempts,
 * diagnostic bundles and webhook), cancelled or deleted.
 */
export class JobsConsole {
  /** Told the id of each job deleted here. */
  private readonly deletions = new Listeners<[string]>();

  constructor(
    private readonly deps: {
      store: JobStore;
      completions: Completions;
      diagnostics: DiagnosticBundles;
      webhooks: WebhooksConsole;
    },
  ) {}

  async recent(limit: number): Promise<JobSummary[]> {
    return (await this.deps.store.recent(Math.min(Math.max(limit, 1), 500))).map((job) => this.summary(job));
  }

  async detail(id: string): Promise<JobDetail> {
    const { completions, store } = this.deps;
    // The whole row: the detail shows the prompt, which the job object does not carry.
    const job = await store.get(id);
    if (!job) throw new ApiError('NOT_FOUND', `No job ${id}.`);
    const rows = await store.attempts(id);
    const wait = completions.waitReason(job);
    return {
      job: jobObject(job, completions.agentName(job), await completions.queuePosition(job), wait ?? undefined),
      prompt: job.prompt,
      content_pruned_at: ts(job.content_pruned_at),
      took_ms: tookMs(job),
      attempts: attemptRecords(rows).map((record, i) => {
        const { started_at, ended_at, detail } = rows[i]!;
        const previous = rows[i - 1];
        // The queue wait before it: since sending, or since the previous attempt ended (a retry, a limit's re-queue).
        const waitedFrom = previous ? (previous.ended_at ?? previous.started_at) : job.created_at;
        // From the millisecond times: the whole-second timestamps round a short attempt to 0.
        return { ...record, run_ms: ended_at === null ? null : ended_at - started_at, waited_ms: Math.max(0, started_at - waitedFrom), detail };
      }),
      diagnostics: this.deps.diagnostics.ofJob(id).map(({ name, manifest }) => bundleView(name, manifest)),
      webhook: await this.deps.webhooks.log(id),
      waiting_because: wait ? waitSentence(wait) : null,
    };
  }

  /** One file of a diagnostic bundle, to download. */
  diagnosticFile(bundle: string, file: string): Promise<BundleFile> {
    return this.deps.diagnostics.file(bundle, file);
  }

  /** The dashboard's cancel: a caller waiting on the job gets 499, as with DELETE. */
  async cancel(id: string): Promise<JobDetail> {
    await this.deps.completions.cancel(id, EVERY_ACCOUNT);
    return this.detail(id);
  }

  /**
   * Deletes a finished job, its attempts, its webhook log and this instance's diagnostic
   * bundles of it (another instance's go at its next retention sweep); GET answers 404 from then on.
   * A queued or running job is refused (409): cancelling it first settles whoever waits on it.
   */
  async delete(id: string): Promise<void> {
    const result = await this.deps.store.delete(id);
    if (!result) throw new ApiError('NOT_FOUND', `No job ${id}.`);
    if (!result.deleted) {
      throw new ApiError('CONFLICT', `This job is ${result.status}: cancel it first, then delete it.`, { status: result.status });
    }
    await this.deps.diagnostics.removeOfJob(id);
    this.deletions.emit(id);
  }

  /** Hears the id of each job deleted; returns the function that stops it. */
  onDeleted(listener: (id: string) => void): () => void {
    return this.deletions.on(listener);
  }

  summary(job: JobRow): JobSummary {
    const summary: JobSummary = {
      id: job.id,
      status: job.status,
      provider: job.provider ?? job.req_provider,
      agent_id: job.agent_id,
      agent_name: this.deps.completions.agentName(job),
      variant: job.variant ?? null,
      model_used: job.model_used ?? null,
      attempts: job.attempts,
      prompt_excerpt: job.prompt.slice(0, 200),
      created_at: timestamp(job.created_at),
      took_ms: tookMs(job),
      error: job.error_code ? { code: job.error_code, message: job.error_message ?? '' } : null,
    };
    if (job.finished_at !== null) summary.finished_at = timestamp(job.finished_at);
    return summary;
  }
}

function bundleView(name: string, m: DiagnosticManifest): DiagnosticBundleView {
  return {
    name,
    attempt: m.attempt,
    agent_id: m.agent_id,
    provider: m.provider,
    at: timestamp(m.at),
    failure: m.failure,
    page_url: m.page_url,
    pack: m.pack,
    cues: m.cues,
    files: m.files,
  };
}
