/** The messages of /admin/v1/keys: API keys as the dashboard lists, creates and revokes them. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import { Timestamp } from './shared.js';
import { SCOPES } from '../enumerations.js';

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

export const KeyCreated = Type.Object({ key: KeyView, secret: Type.String({ description: 'Shown once' }) });
