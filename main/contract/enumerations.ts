/**
 * The words and ranges the API's messages promise and the rooms behind it keep: key scopes,
 * rotation strategies, log levels and sources, and the bounds of two settings. Written here,
 * below both, so the schemas and the stores that enforce them read the same list.
 */

export const SCOPES = ['completions:read', 'completions:write', 'metrics:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROTATIONS = ['round_robin', 'least_used', 'ordered', 'random'] as const;
export type Rotation = (typeof ROTATIONS)[number];

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where an entry comes from: the service itself, an agent, a job, a webhook delivery. */
export const LOG_SOURCES = ['service', 'agent', 'job', 'webhook'] as const;
export type LogSource = (typeof LOG_SOURCES)[number];

/** Content retention in days: ten years at the most (settings-store.ts has the default). */
export const MAX_RETENTION_DAYS = 3_650;

/** The least pause between an agent's jobs, in ms: an hour at the most (settings-store.ts has the default). */
export const MAX_PAUSE_MS = 3_600_000;
