/** The messages of /admin/v1/logs (and the `log` event): the service's recent log. */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './shared.js';
import { LOG_LEVELS, LOG_SOURCES, type LogSource } from '../enumerations.js';

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
