import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AccountView } from '../../contract/admin/accounts.js';
import { ok } from '../../contract/admin/shared.js';

/** What this route asks of the application layer (main/service/admin/accounts.ts). */
export interface AccountsPort {
  list(): Promise<AccountView[]>;
}

/** GET /admin/v1/accounts: (hosted) the accounts the operator serves. */
export async function accountRoutes(app: FastifyInstance, { accounts }: { accounts: AccountsPort }): Promise<void> {
  app.get(
    '/accounts',
    { schema: { summary: '(hosted) Accounts: queue depth, usage this hour and today, keys, retention', response: ok(Type.Array(AccountView)) } },
    async () => accounts.list(),
  );
}
