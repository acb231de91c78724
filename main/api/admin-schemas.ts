/**
 * The messages of the dashboard's API (/admin/v1), written once like the public ones: they
 * validate requests, type the handlers, and will type the dashboard's client.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PROVIDERS } from '../core/providers.js';
import { SCOPES } from '../keys/key-store.js';
import { ROTATIONS } from '../settings/settings-store.js';
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
  state: Type.String({ description: 'needs_login, idle, busy, paused or error' }),
  detail: Nullable(Type.String({ description: 'Why the agent is not ready, in words for a person' })),
  enabled: Type.Boolean(),
  position: Type.Integer(),
  cap_per_hour: Cap,
  used_this_hour: Type.Integer(),
  next_slot_at: Nullable(Timestamp),
  cooldown_until: Nullable(Timestamp),
  created_at: Timestamp,
});
export type AgentView = Static<typeof AgentView>;

export const AdminSettings = Type.Object({
  paused: Type.Boolean(),
  rotation: Type.Unsafe<(typeof ROTATIONS)[number]>({ type: 'string', enum: [...ROTATIONS] }),
  global_cap: Cap,
  provider_caps: Type.Record(Type.String(), Cap),
});
export type AdminSettings = Static<typeof AdminSettings>;

export const AdminState = Type.Object({
  version: Type.String(),
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
  },
  { additionalProperties: false },
);
export type AgentPatch = Static<typeof AgentPatch>;

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
    scopes: Type.Array(Type.Unsafe<(typeof SCOPES)[number]>({ type: 'string', enum: [...SCOPES] }), { minItems: 1, uniqueItems: true }),
    expires_in_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3_650 }))),
  },
  { additionalProperties: false },
);
export type KeyCreate = Static<typeof KeyCreate>;

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

export const JobDetail = Type.Object({
  job: Job,
  prompt: Type.String(),
  attempts: Type.Array(AttemptRecord),
  webhook: Nullable(WebhookLog),
});
export type JobDetail = Static<typeof JobDetail>;

export const SigningSecretView = Type.Object({ secret: Type.String() });

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
