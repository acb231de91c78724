/**
 * The messages of the dashboard's API (/admin/v1), written once like the public ones: they
 * validate requests, type the handlers, and will type the dashboard's client.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PROVIDERS } from '../core/providers.js';
import { SCOPES } from '../keys/key-store.js';
import { LOG_LEVELS, LOG_SOURCES, type LogSource } from '../logs/log-book.js';
import { MAX_PAUSE_MS, MAX_RETENTION_DAYS, ROTATIONS } from '../settings/settings-store.js';
import { AttemptRecord, Job, Status } from './schemas.js';

function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

const Cap = Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Jobs per rolling hour; null: no cap' }));
const Timestamp = Type.String({ format: 'date-time' });

export const AgentView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  state: Type.String({ description: 'needs_login, idle, busy, resting (after a usage limit, until cooldown_until), paused or error' }),
  detail: Nullable(Type.String({ description: 'Why the agent is not ready, in words for a person' })),
  enabled: Type.Boolean(),
  position: Type.Integer(),
  cap_per_hour: Cap,
  used_this_hour: Type.Integer(),
  next_slot_at: Nullable(Timestamp),
  cooldown_until: Nullable(Timestamp),
  next_check_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the agent, set aside (error) or resting, looks at its page again on its own; null when it does not (a login waits for the person)',
    }),
  ),
  pause_ms: Nullable(Type.Integer({ description: 'Its own least pause between jobs, in ms; null follows the global setting (settings.pause_ms)' })),
  pause_until: Nullable(Type.String({ format: 'date-time', description: 'It pauses between jobs until then (a guard against bans): idle, but takes no job yet' })),
  proxy: Nullable(Type.String({ description: "Its browser's proxy, the password masked; null for a direct connection" })),
  pairing: Nullable(
    Type.Unsafe<'login' | 'checking'>({
      type: 'string',
      enum: ['login', 'checking'],
      description: "A login is under way in the agent's page: waiting for the person, or checking the result",
    }),
  ),
  created_at: Timestamp,
});
export type AgentView = Static<typeof AgentView>;

const PauseMs = Type.Integer({
  minimum: 0,
  maximum: MAX_PAUSE_MS,
  description: 'The least pause between an agent\'s jobs, in ms; up to half of it again is added at random',
});

const RetentionDays = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: MAX_RETENTION_DAYS,
    description: 'Finished jobs lose their prompt and response this many days after they finished; null keeps them',
  }),
);

export const AdminSettings = Type.Object({
  paused: Type.Boolean(),
  rotation: Type.Unsafe<(typeof ROTATIONS)[number]>({ type: 'string', enum: [...ROTATIONS] }),
  global_cap: Cap,
  provider_caps: Type.Record(Type.String(), Cap),
  retention_days: RetentionDays,
  pause_ms: PauseMs,
});
export type AdminSettings = Static<typeof AdminSettings>;

export const AdminState = Type.Object({
  version: Type.String(),
  profile: Type.Union([Type.Literal('personal'), Type.Literal('hosted')], { description: 'serve --profile' }),
  data_dir: Type.String(),
  settings: AdminSettings,
  agents: Type.Array(AgentView),
  status: Status,
});
export type AdminState = Static<typeof AdminState>;

export const SettingsPatch = Type.Object(
  {
    paused: Type.Optional(Type.Boolean()),
    rotation: Type.Optional(AdminSettings.properties.rotation),
    global_cap: Type.Optional(Cap),
    retention_days: Type.Optional(RetentionDays),
    pause_ms: Type.Optional(PauseMs),
    provider_caps: Type.Optional(
      Type.Object(Object.fromEntries(PROVIDERS.map((p) => [p, Type.Optional(Cap)])), { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type SettingsPatch = Static<typeof SettingsPatch>;

export const AgentPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    enabled: Type.Optional(Type.Boolean()),
    cap_per_hour: Type.Optional(Cap),
    pause_ms: Type.Optional(Nullable({ ...PauseMs, description: 'Its own least pause between jobs, in ms; null follows the global setting' })),
    proxy: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          description: "Its browser's egress: http://, https:// or socks5:// with host and port (user:password@ allowed); null for none. Its browser restarts.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type AgentPatch = Static<typeof AgentPatch>;

export const AgentCreate = Type.Object(
  {
    provider: Type.Unsafe<(typeof PROVIDERS)[number]>({ type: 'string', enum: [...PROVIDERS] }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
  },
  { additionalProperties: false },
);
export type AgentCreate = Static<typeof AgentCreate>;

export { ViewFrame, ViewInput } from '../core/screen.js';

export const KeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hint: Type.String({ description: 'The first characters, to recognise the key' }),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
});
export type KeyView = Static<typeof KeyView>;

export const KeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80 }),
    account_id: Type.Optional(Type.String({ maxLength: 64, description: '(hosted) The account the key acts for; required there' })),
    scopes: Type.Array(Type.Unsafe<(typeof SCOPES)[number]>({ type: 'string', enum: [...SCOPES] }), { minItems: 1, uniqueItems: true }),
    expires_in_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3_650 }))),
  },
  { additionalProperties: false },
);
export type KeyCreate = Static<typeof KeyCreate>;

/** (hosted) An account as the operator sees it in the dashboard. */
export const AccountView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  retention_days: Nullable(Type.Integer()),
  disabled: Type.Boolean(),
  queue_depth: Type.Integer({ description: 'Jobs of the account queued now' }),
  used_this_hour: Type.Integer({ description: 'Attempts started for the account in the last 60 minutes' }),
  used_today: Type.Integer({ description: 'Attempts started for the account since 00:00 UTC' }),
  keys: Type.Array(KeyView),
});
export type AccountView = Static<typeof AccountView>;

export const KeyCreated = Type.Object({ key: KeyView, secret: Type.String({ description: 'Shown once' }) });

export const JobSummary = Type.Object({
  id: Type.String(),
  status: Type.String(),
  provider: Nullable(Type.String()),
  agent_id: Nullable(Type.String()),
  agent_name: Nullable(Type.String()),
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

export const WebhookAttemptView = Type.Object({
  attempt: Type.Integer(),
  round: Type.Integer(),
  started_at: Timestamp,
  duration_ms: Type.Integer(),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});

export const WebhookLog = Type.Object({
  url: Type.String(),
  state: Type.String(),
  round: Type.Integer(),
  next_attempt_at: Nullable(Timestamp),
  attempts: Type.Array(WebhookAttemptView),
});
export type WebhookLog = Static<typeof WebhookLog>;

/** An attempt as the dashboard shows it: the contract's record, how long it ran, and what the agent said of a failure. */
export const AttemptView = Type.Object({
  ...AttemptRecord.properties,
  run_ms: Nullable(Type.Integer({ description: 'How long the attempt ran, in ms; null while it runs' })),
  waited_ms: Type.Integer({ description: "How long the job waited in the queue before this attempt started, in ms: since it was sent for the first, since the previous attempt ended for the others" }),
  detail: Nullable(Type.String({ description: "The agent's own words about a failed attempt, such as which control it could not find (never in /v1)" })),
});

const CueMatch = Nullable(
  Type.Object(
    { index: Type.Integer({ description: "The cue's position in the role's list" }), kind: Type.String(), css: Type.String() },
    { description: 'The cue that found the role; null when none did' },
  ),
);

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

export const SiteCheckRequest = Type.Object(
  { send: Type.Optional(Type.Boolean({ description: 'Also run a short probe prompt, to check the roles of an answer (default false)' })) },
  { additionalProperties: false },
);
export type SiteCheckRequest = Static<typeof SiteCheckRequest>;

/** main/core/site-check.ts: what an agent's page shows of each role of its pack. */
export const SiteCheckView = Type.Object({
  agent_id: Type.String(),
  provider: Type.String(),
  site: Type.String({ description: "The provider's name" }),
  at: Timestamp,
  pack: Type.Object({
    version: Type.Integer(),
    checked: Type.String({ description: 'The day its cues were last held against the live site' }),
    override: Nullable(Type.String({ description: 'The override file merged in' })),
    override_error: Nullable(Type.String({ description: 'Why an override file was refused (the pack above stays in force)' })),
  }),
  page_url: Nullable(Type.String({ description: 'Origin and path only' })),
  sent: Type.Boolean({ description: 'Whether the probe prompt was sent' }),
  problem: Nullable(Type.String({ description: 'What kept the check from going through: a login wall, a challenge, a failed probe' })),
  roles: Type.Array(
    Type.Object({
      role: Type.String(),
      status: Type.Unsafe<'found' | 'missing' | 'not_shown' | 'needs_send'>({
        type: 'string',
        enum: ['found', 'missing', 'not_shown', 'needs_send'],
        description: 'missing: needed and no cue finds it; not_shown: a notice the page shows only when it has one; needs_send: shown only by an answer',
      }),
      cue: CueMatch,
    }),
  ),
  variants: Nullable(Type.Array(Type.String(), { description: "The ids of the pack's variants the account's picker and toggles offer now; null where the page could not be looked at" })),
  ok: Type.Boolean({ description: 'No role missing and no problem' }),
});
export type SiteCheckView = Static<typeof SiteCheckView>;

export const SigningSecretView = Type.Object({ secret: Type.String() });

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const LogLevel = Type.Unsafe<(typeof LOG_LEVELS)[number]>({ type: 'string', enum: [...LOG_LEVELS] });

/** One line of the service's recent log (`GET /admin/v1/logs`, and the `log` event). */
export const LogEntryView = Type.Object({
  seq: Type.Integer({ description: 'Increases by one per entry; starts again at 1 when the service restarts' }),
  at: Timestamp,
  level: LogLevel,
  source: Type.Unsafe<LogSource>({ type: 'string', enum: [...LOG_SOURCES] }),
  message: Type.String({ description: 'In words for a person; ids, states and codes, never prompts or answers' }),
});
export type LogEntryView = Static<typeof LogEntryView>;

export const LogList = Type.Object({ entries: Type.Array(LogEntryView, { description: 'Oldest first' }) });

export const LogsQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'How many of the newest entries (default 200, at most 1000)' })),
    level: Type.Optional({ ...LogLevel, description: 'The lowest level to include (default info: everything)' }),
  },
  { additionalProperties: false },
);


// ---- Usage history (GET /admin/v1/usage) ----------------------------------------------------

export const USAGE_RANGES = ['24h', '7d', '90d'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];

const Percentiles = Nullable(Type.Object({ p50: Type.Integer(), p95: Type.Integer() }, { description: 'ms; null when no job counts' }));

export const UsageFigures = Type.Object({
  jobs: Type.Integer({ description: 'Jobs that finished, whatever their status' }),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  cancelled: Type.Integer(),
  expired: Type.Integer(),
  failures: Type.Record(Type.String(), Type.Integer(), { description: 'Failed and expired jobs by error code' }),
  queue_ms: Percentiles,
  run_ms: Percentiles,
  answer_ms: { ...Percentiles, description: 'From acceptance to the answer, over jobs that succeeded' },
});
export type UsageFigures = Static<typeof UsageFigures>;

export const UsageGroupView = Type.Object({
  id: Nullable(Type.String({ description: 'Provider, agent id or key id; null when unknown' })),
  name: Type.String({ description: 'For a person' }),
  figures: UsageFigures,
});
export type UsageGroupView = Static<typeof UsageGroupView>;

export const UsageView = Type.Object({
  since: Timestamp,
  until: Timestamp,
  bucket_ms: Type.Integer({ description: '3 600 000 (hours), or 86 400 000 (days) for 90d' }),
  totals: UsageFigures,
  series: Type.Array(
    Type.Object({
      start: Timestamp,
      figures: UsageFigures,
      providers: Type.Record(Type.String(), Type.Integer(), { description: "Jobs per provider; 'none' for jobs that named none and never reached an agent" }),
    }),
    { description: 'Every bucket of the range, oldest first, empty ones included' },
  ),
  groups: Type.Object({ provider: Type.Array(UsageGroupView), agent: Type.Array(UsageGroupView), key: Type.Array(UsageGroupView) }),
});
export type UsageView = Static<typeof UsageView>;

export const UsageQuery = Type.Object(
  {
    range: Type.Optional(Type.Unsafe<UsageRange>({ type: 'string', enum: [...USAGE_RANGES], description: 'Default 24h' })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only jobs sent with this key id ('admin': the dashboard's token)" })),
    agent: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only jobs run by this agent' })),
    tz_offset: Type.Optional(
      Type.String({ pattern: '^-?[0-9]{1,3}$', description: 'Minutes east of UTC, so days start at local midnight (default 0)' }),
    ),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;
