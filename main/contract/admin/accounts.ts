/** The messages of /admin/v1/accounts: (hosted) the accounts the operator serves. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import { KeyView } from './keys.js';

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
