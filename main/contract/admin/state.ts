/** The messages of /admin/v1/state and /admin/v1/settings: the dashboard's overview and the account's settings. */
import { Type, type Static } from '@sinclair/typebox';
import { PROVIDERS } from '../../core/providers.js';
import { Nullable, Status } from '../schemas.js';
import { AgentView } from './agents.js';
import { Cap, PauseMs } from './shared.js';
import { MAX_RETENTION_DAYS, ROTATIONS } from '../enumerations.js';
import { ATTACHMENT_LIMITS } from '../../core/attachments.js';

const RetentionDays = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: MAX_RETENTION_DAYS,
    description: 'Finished jobs lose their prompt and response this many days after they finished; null keeps them',
  }),
);

const AttachmentMaxFileBytes = Type.Integer({
  minimum: 1,
  maximum: ATTACHMENT_LIMITS.maxFileBytes,
  description: 'The most a file of a job may have, in bytes (at most the contract\'s 20 MiB, the default)',
});
const AttachmentMaxTotalBytes = Type.Integer({
  minimum: 1,
  maximum: ATTACHMENT_LIMITS.maxTotalBytes,
  description: 'The most a job\'s files may have together, in bytes (at most the contract\'s 50 MiB, the default)',
});

export const AdminSettings = Type.Object({
  paused: Type.Boolean(),
  rotation: Type.Unsafe<(typeof ROTATIONS)[number]>({ type: 'string', enum: [...ROTATIONS] }),
  global_cap: Cap,
  provider_caps: Type.Record(Type.String(), Cap),
  retention_days: RetentionDays,
  pause_ms: PauseMs,
  streaming: Type.Boolean({ description: 'POST /v1/chat/completions answers stream: true with chat.completion.chunk events (off: 400)' }),
  attachment_max_file_bytes: AttachmentMaxFileBytes,
  attachment_max_total_bytes: AttachmentMaxTotalBytes,
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
    streaming: Type.Optional(Type.Boolean()),
    attachment_max_file_bytes: Type.Optional(AttachmentMaxFileBytes),
    attachment_max_total_bytes: Type.Optional(AttachmentMaxTotalBytes),
    provider_caps: Type.Optional(
      Type.Object(Object.fromEntries(PROVIDERS.map((p) => [p, Type.Optional(Cap)])), { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type SettingsPatch = Static<typeof SettingsPatch>;
