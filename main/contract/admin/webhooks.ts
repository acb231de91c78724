/** The messages of the dashboard's webhook routes: a job's delivery log and the signing secret. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import { Timestamp } from './shared.js';

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

export const SigningSecretView = Type.Object({ secret: Type.String() });
