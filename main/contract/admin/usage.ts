/** The messages of /admin/v1/usage: jobs, failures and timings per hour or day. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import { Timestamp } from './shared.js';

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
