import { useCallback, useEffect, useState } from 'react';
import type { AccountView, AdminApi } from '../api.js';
import { plainMessage } from '../api.js';
import { Badge } from '../components/Badge.js';
import { EmptyState } from '../components/EmptyState.js';
import { Problem } from '../components/Problem.js';
import { useDashboard } from '../store.js';

/**
 * The operator's view of a hosted service: each account's queue, what it used this hour
 * and today, its keys and its retention. Accounts are made and changed with
 * `chatbridge accounts …`; this page refreshes with the live feed.
 */
export function Accounts({ api }: { api: AdminApi }) {
  const [accounts, setAccounts] = useState<AccountView[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  // Any change the live feed brings (a job queued or finished, a key used) may move the figures.
  const changes = useDashboard((s) => s.admin);
  const load = useCallback(() => api.accounts().then(setAccounts, (e: unknown) => setLoadError(plainMessage(e))), [api]);
  useEffect(() => void load(), [load, changes]);

  return (
    <>
      <p className="lead">
        Everyone who sends jobs to this service has an account, with keys of its own. Agents, caps and rotation serve every account; free agents
        take the accounts' queued jobs in turn.
      </p>
      <Problem message={loadError} />
      {accounts === null ? null : accounts.length === 0 ? (
        <EmptyState title="No accounts yet">
          <p>
            Create one with <code>chatbridge accounts create --name NAME</code>, then give it a key with{' '}
            <code>chatbridge keys create --account ACCT_ID --name NAME --scopes completions:read,completions:write</code>.
          </p>
        </EmptyState>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Queued</th>
              <th scope="col">This hour</th>
              <th scope="col">Today</th>
              <th scope="col">Keys</th>
              <th scope="col">Retention</th>
            </tr>
          </thead>
          <tbody>
            {accounts.map((a) => (
              <tr key={a.id}>
                <td>
                  {a.name} <code>{a.id}</code> {a.disabled && <Badge tone="warn">disabled</Badge>}
                </td>
                <td>{a.queue_depth}</td>
                <td>{a.used_this_hour}</td>
                <td>{a.used_today}</td>
                <td>
                  {a.keys.length === 0
                    ? 'none'
                    : a.keys.map((k) => (
                        <span key={k.id}>
                          {k.name} <code>{k.hint}</code>
                          {k.revoked_at && ' (revoked)'}{' '}
                        </span>
                      ))}
                </td>
                <td>{a.retention_days === null ? 'kept' : `${a.retention_days} days`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
