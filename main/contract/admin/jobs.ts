/** The messages of /admin/v1/jobs and /admin/v1/diagnostics: recent jobs, one job in full, its diagnostic bundles. */
import { Type, type Static } from '@sinclair/typebox';
import { AttemptRecord, Job, Nullable } from '../schemas.js';
import { CueMatch, Timestamp } from './shared.js';
import { WebhookLog } from './webhooks.js';

export const JobSummary = Type.Object({
  id: Type.String(),
  status: Type.String(),
  provider: Nullable(Type.String()),
  agent_id: Nullable(Type.String()),
  agent_name: Nullable(Type.String()),
  /** The model or mode asked for (decisions.md, "Models and modes"), and the one the page named after the answer. */
  variant: Nullable(Type.String()),
  model_used: Nullable(Type.String()),
  attempts: Type.Integer(),
  prompt_excerpt: Type.String(),
  created_at: Timestamp,
  finished_at: Type.Optional(Timestamp),
  /** From acceptance to the end, in ms (the timestamps have whole seconds only); null while unfinished. */
  took_ms: Nullable(Type.Integer()),
  error: Job.properties.error,
});
export type JobSummary = Static<typeof JobSummary>;

export const JobList = Type.Object({ jobs: Type.Array(JobSummary) });

export const JobsQuery = Type.Object(
  { limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })) },
  { additionalProperties: false },
);

/** An attempt as the dashboard shows it: the contract's record, how long it ran, and what the agent said of a failure. */
export const AttemptView = Type.Object({
  ...AttemptRecord.properties,
  run_ms: Nullable(Type.Integer({ description: 'How long the attempt ran, in ms; null while it runs' })),
  waited_ms: Type.Integer({ description: "How long the job waited in the queue before this attempt started, in ms: since it was sent for the first, since the previous attempt ended for the others" }),
  detail: Nullable(Type.String({ description: "The agent's own words about the attempt: for a failed one, such as which control it could not find; for a succeeded one, how the end of the answer was decided (never in /v1)" })),
});

/** What an agent kept of its page when an attempt failed (main/core/diagnostics.ts). */
export const DiagnosticBundleView = Type.Object({
  name: Type.String({ description: '<job id>-<attempt>: the folder under <data dir>/diagnostics, and the path to download its files' }),
  attempt: Type.Integer(),
  agent_id: Type.String(),
  provider: Type.String(),
  at: Timestamp,
  failure: Type.Object({ kind: Type.String(), message: Type.String() }),
  page_url: Nullable(Type.String({ description: 'Origin and path only' })),
  pack: Type.Object({ version: Type.Integer(), checked: Type.String(), override: Nullable(Type.String({ description: 'The override file merged in' })) }),
  cues: Type.Record(Type.String(), CueMatch, { description: 'Per role' }),
  files: Type.Array(Type.String(), { description: 'screenshot.png, page.html, failure.json: those that were written' }),
});
export type DiagnosticBundleView = Static<typeof DiagnosticBundleView>;

export const DiagnosticFileParams = Type.Object({
  bundle: Type.String({ maxLength: 80 }),
  file: Type.String({ maxLength: 40 }),
});

export const JobDetail = Type.Object({
  job: Job,
  prompt: Type.String({ description: "Empty once retention removed it" }),
  content_pruned_at: Nullable({ ...Timestamp, description: 'When retention removed the prompt and response; null while they are stored' }),
  took_ms: { ...JobSummary.properties.took_ms, description: "From acceptance to the end, in ms, as the list's; null while unfinished" },
  attempts: Type.Array(AttemptView),
  diagnostics: Type.Array(DiagnosticBundleView, { description: "Bundles of the job's failed attempts still kept (the newest 20 across jobs), oldest attempt first" }),
  webhook: Nullable(WebhookLog),
  waiting_because: Nullable(Type.String({ description: 'Why a queued job has not started, in words for a person' })),
});
export type JobDetail = Static<typeof JobDetail>;
