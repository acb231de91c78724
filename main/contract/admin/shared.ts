/** The pieces several resources of the dashboard's API (/admin/v1) use in their messages. */
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope, Nullable } from '../schemas.js';
import { MAX_PAUSE_MS } from '../enumerations.js';

export const Timestamp = Type.String({ format: 'date-time' });

export const Cap = Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Jobs per rolling hour; null: no cap' }));

export const PauseMs = Type.Integer({
  minimum: 0,
  maximum: MAX_PAUSE_MS,
  description: 'The least pause between an agent\'s jobs, in ms; up to half of it again is added at random',
});

/** Which cue of a selector pack found a role: a site check's, and a diagnostic bundle's. */
export const CueMatch = Nullable(
  Type.Object(
    { index: Type.Integer({ description: "The cue's position in the role's list" }), kind: Type.String(), css: Type.String() },
    { description: 'The cue that found the role; null when none did' },
  ),
);

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The responses of a route that answers `body`, or an error. */
export const ok = <T extends object>(body: T) => ({ 200: body, default: ErrorEnvelope });

/** The responses of a route that answers 204 with no body, or an error. */
export const NO_CONTENT = { 204: Type.Null(), default: ErrorEnvelope };
