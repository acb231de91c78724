/**
 * Every message of the API, written once. Fastify validates requests against these, the
 * TypeScript types come from them, and /v1/openapi.json is generated from them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LIMITS } from '../core/limits.js';
import { PROVIDERS } from '../core/providers.js';
import { JOB_STATUSES, type JobStatus } from '../core/jobs.js';

/** OpenAPI 3.0's `nullable`, which Ajv understands, keeps "X or null" a single, readable rule. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

export const ProviderName = Type.Unsafe<(typeof PROVIDERS)[number]>({ type: 'string', enum: [...PROVIDERS] });

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, whole seconds' });

// ---- POST /v1/completions -------------------------------------------------------------

/** The submission with a profile's `priority` range (api.md Limits); `CompletionRequest` is Profile F's. */
export function completionRequestSchema(priority: { min: number; max: number }) {
  return Type.Object(
    {
      ...CompletionRequest.properties,
      priority: Type.Integer({ minimum: priority.min, maximum: priority.max, default: 0, description: 'Higher starts first' }),
    },
    { additionalProperties: false },
  );
}

export const CompletionRequest = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: LIMITS.promptChars, description: 'Text sent to the provider' }),
    provider: Nullable({ ...ProviderName, enum: [...PROVIDERS, null], default: null }),
    agent_id: Nullable(Type.String({ maxLength: 64, default: null, description: 'Restrict the job to one agent' })),
    variant: Nullable(
      Type.String({
        maxLength: 60,
        default: null,
        description: "A model or mode of the provider's own picker (needs provider; GET /v1/models lists them as service/<provider>/<variant>). null: the account's default",
      }),
    ),
    wait: Type.Boolean({
      default: true,
      description:
        'Hold the request open until the job settles (at most 10 minutes). false answers 202 at once, but only when an agent is free ' +
        'right now: without callback_url it answers 503 whenever none is. To queue a job for later, give a callback_url, or keep wait: true ' +
        'and poll GET /v1/completions/{id} after a 504.',
    }),
    // No schema default for these two: a long-thinking variant changes both (main/service/submission.ts).
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: LIMITS.timeoutMs.min,
        maximum: LIMITS.longTimeoutMs,
        description:
          'Per attempt: 5 000 to 600 000, default 180 000. Under a long-thinking variant (ChatGPT pro, Perplexity research) up to ' +
          "the variant's own limit (at most 3 600 000), which is also its default; such an attempt is never sent again from the start",
      }),
    ),
    deadline_ms: Type.Optional(
      Type.Integer({
        minimum: LIMITS.deadlineMs.min,
        maximum: LIMITS.deadlineMs.max,
        description: 'Whole job: default 900 000, and 3 600 000 under a long-thinking variant',
      }),
    ),
    priority: Type.Integer({ minimum: -10, maximum: 100, default: 0, description: 'Higher starts first' }),
    mode: Type.Union([Type.Literal('new'), Type.Literal('continue')], { default: 'new' }),
    conversation_ref: Nullable(Type.String({ minLength: 1, maxLength: LIMITS.conversationRefChars, default: null })),
    callback_url: Nullable(Type.String({ minLength: 1, maxLength: LIMITS.callbackUrlChars, default: null, description: 'https URL' })),
    metadata: Type.Record(Type.String(), Type.Unknown(), { default: {}, description: 'At most 4 096 bytes as JSON; echoed verbatim' }),
  },
  { additionalProperties: false },
);
export type CompletionRequest = Static<typeof CompletionRequest>;

/** The defaults of every optional field of a submission, read from the schema itself. */
export function completionDefaults(): Omit<CompletionRequest, 'prompt'> {
  const entries = Object.entries(CompletionRequest.properties)
    .filter(([, schema]) => 'default' in schema)
    .map(([name, schema]) => [name, structuredClone((schema as { default: unknown }).default)]);
  return Object.fromEntries(entries) as Omit<CompletionRequest, 'prompt'>;
}

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.idempotencyKeyChars })),
});

export const JobParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const WaitQuery = Type.Object(
  { wait: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) },
  { additionalProperties: false },
);

// ---- Responses ------------------------------------------------------------------------

// An enum rather than a union of literals: the response serializer picks among anyOf
// branches by validating each at run time, on every response.
export const JobStatusName = Type.Unsafe<JobStatus>({ type: 'string', enum: [...JOB_STATUSES] });

export const ErrorSummary = Type.Object({ code: Type.String(), message: Type.String() });

/** A file of a job as every reader of the job is shown it (decisions.md "Attachments"): never its data. */
export const AttachmentSummary = Type.Object({
  filename: Type.String(),
  media_type: Type.String(),
  bytes: Type.Integer({ minimum: 0, description: 'Its size decoded' }),
  sha256: Type.String({ description: 'Its SHA-256, lower-case hex' }),
});

export const Job = Type.Object({
  id: Type.String({ description: 'job_…' }),
  status: JobStatusName,
  response: Nullable(Type.String()),
  provider: Nullable(Type.String()),
  agent_id: Nullable(Type.String()),
  agent_name: Nullable(Type.String()),
  variant: Nullable(Type.String({ description: 'The variant asked for; null: the account’s default' })),
  model_used: Nullable(Type.String({ description: 'The model the page said answered (ChatGPT marks each answer); null where it does not say' })),
  conversation_ref: Nullable(Type.String({ description: 'Opaque; send back with mode "continue"' })),
  attempts: Type.Integer(),
  queue_ms: Nullable(Type.Integer({ description: 'Wait before the first dispatch; null until then' })),
  run_ms: Type.Integer(),
  created_at: Timestamp,
  finished_at: Type.Optional(Timestamp),
  queue_position: Type.Optional(Type.Integer({ minimum: 1 })),
  waiting_because: Type.Optional(Type.String({ description: 'Only on a queued job: why it has not started, in words for a person' })),
  waiting_until: Type.Optional(Timestamp),
  error: Nullable(ErrorSummary),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  attachments: Type.Array(AttachmentSummary, { description: 'The files sent with the prompt, in order; [] when none' }),
});
export type Job = Static<typeof Job>;

/**
 * The job object of Profile H (api.md): timestamps with milliseconds, `content_pruned_at`
 * always present, `queue_position` the count of the caller's queued jobs.
 */
const HostedTimestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
export const HostedJob = Type.Object({
  ...Job.properties,
  created_at: HostedTimestamp,
  finished_at: Type.Optional(HostedTimestamp),
  content_pruned_at: Nullable(HostedTimestamp),
  queue_position: Type.Optional(Type.Integer({ minimum: 1, description: "The caller's jobs queued now" })),
});
export type HostedJob = Static<typeof HostedJob>;

export const Accepted = Type.Object({
  id: Type.String(),
  status: Type.Literal('queued'),
  created_at: Timestamp,
});
export type Accepted = Static<typeof Accepted>;

export const AttemptRecord = Type.Object({
  attempt: Type.Integer(),
  agent_id: Type.String(),
  provider: Type.String(),
  started_at: Timestamp,
  ended_at: Nullable(Timestamp),
  outcome: Nullable(Type.String()),
  error_code: Nullable(Type.String()),
});
export type AttemptRecord = Static<typeof AttemptRecord>;

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    request_id: Type.String({ description: 'req_…, equal to the X-Request-Id header' }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

// ---- POST /v1/chat/completions --------------------------------------------------------

export const CHAT_MODELS = ['service/auto', ...PROVIDERS.map((p) => `service/${p}`)] as const;

const ContentPart = Type.Object(
  { type: Type.String(), text: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

export const ChatMessage = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('developer'), Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.Union([Type.String({ maxLength: LIMITS.promptChars }), Type.Array(ContentPart, { maxItems: 256 })]),
  },
  { additionalProperties: true },
);
export type ChatMessage = Static<typeof ChatMessage>;

export const ChatCompletionRequest = Type.Object(
  {
    // A variant's id is checked against its provider's pack by the route; a model of neither
    // form is refused with the enum's message, which names the choices.
    model: Type.Unsafe<string>({
      anyOf: [
        { type: 'string', enum: [...CHAT_MODELS] },
        { type: 'string', pattern: `^service/(${PROVIDERS.join('|')})/[a-z0-9-]{1,60}$`, description: 'service/<provider>/<variant>, as GET /v1/models lists them' },
      ],
    }),
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: LIMITS.chatMessages }),
    stream: Type.Optional(
      Nullable(Type.Boolean({ description: 'true: the answer as chat.completion.chunk events, once the operator turned streaming on (otherwise 400)' })),
    ),
    stream_options: Type.Optional(
      Nullable(Type.Object({ include_usage: Type.Optional(Nullable(Type.Boolean({ description: 'adds a last chunk with usage: null' }))) }, { additionalProperties: true })),
    ),
  },
  // OpenAI clients send options this service has no use for (temperature, user, …): ignored.
  { additionalProperties: true },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

export const ChatCompletion = Type.Object({
  id: Type.String({ description: 'The job id' }),
  object: Type.Literal('chat.completion'),
  created: Type.Integer({ description: 'Unix seconds' }),
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({ role: Type.Literal('assistant'), content: Type.String() }),
      finish_reason: Type.Literal('stop'),
    }),
  ),
  usage: Type.Null(),
});
export type ChatCompletion = Static<typeof ChatCompletion>;

// ---- GET /v1/models, GET /v1/status ---------------------------------------------------

export const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({ id: Type.String(), object: Type.Literal('model'), created: Type.Integer(), owned_by: Type.String() }),
  ),
});
export type ModelList = Static<typeof ModelList>;

const CapUsage = {
  rate_limit_per_hour: Nullable(Type.Integer({ description: 'The hourly cap; null when there is none' })),
  used_this_hour: Type.Integer({ description: 'Dispatches in the last 60 minutes' }),
  next_slot_at: Nullable(Timestamp),
};

export const AgentSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  state: Type.String({ description: 'needs_login, idle, busy, resting (after a usage limit, until cooldown_until), paused or error' }),
  cooldown_until: Nullable(Timestamp),
  ...CapUsage,
});

export const Status = Type.Object({
  providers: Type.Record(
    Type.String(),
    Type.Object({ agents_idle: Type.Integer(), agents_total: Type.Integer(), ...CapUsage }),
  ),
  queue: Type.Object({ depth: Type.Integer(), oldest_queued_at: Nullable(Timestamp) }),
  agents: Type.Object({ idle: Type.Integer(), busy: Type.Integer(), total: Type.Integer() }, { description: 'The agents of online devices' }),
  devices: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The device as its owner named it (serve --device-name; the host name by default)' }),
      base_url: Nullable(Type.String({ description: 'Where its API answers; null for a device started with --no-api' })),
      online: Type.Boolean({ description: 'Running (beating within its lease) and its agents not paused' }),
      paused: Type.Boolean(),
      agents: Type.Array(AgentSummary),
    }),
    {
      description:
        'Every instance sharing the queue (one for a desktop): the one answering first, then the online ones. The agents of an offline device are listed as it last published them and count nowhere else.',
    },
  ),
  global: Type.Object(CapUsage),
  rotation: Type.String(),
});
export type Status = Static<typeof Status>;

/**
 * GET /v1/status of Profile H: the per-provider figures every account shares, and the
 * caller's own queue. The operator's agents, devices and rotation are not the callers'.
 */
export const HostedStatus = Type.Object({
  providers: Status.properties.providers,
  queue: Status.properties.queue,
});
export type HostedStatus = Static<typeof HostedStatus>;
