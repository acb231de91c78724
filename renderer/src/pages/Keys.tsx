import { useCallback, useEffect, useId, useState } from 'react';
import type { AccountView, AdminApi, KeyCreated, KeyView, Scope } from '../api.js';
import { plainMessage } from '../api.js';
import { Badge } from '../components/Badge.js';
import { ConfirmButton } from '../components/ConfirmButton.js';
import { CopyButton } from '../components/CopyButton.js';
import { EmptyState } from '../components/EmptyState.js';
import { Problem } from '../components/Problem.js';
import { clockTime, relative } from '../format.js';
import { useAction, useNow } from '../hooks.js';

const SCOPES = {
  'completions:write': 'Send prompts',
  'completions:read': 'Read jobs and answers',
  'metrics:read': 'Read metrics (/metrics)',
} satisfies Record<Scope, string>;

const EXPIRY = [
  { label: 'Never', days: null },
  { label: 'In 30 days', days: 30 },
  { label: 'In 90 days', days: 90 },
  { label: 'In a year', days: 365 },
];

/** `hosted`: every key belongs to an account, picked when it is made. */
export function Keys({ api, hosted }: { api: AdminApi; hosted: boolean }) {
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [created, setCreated] = useState<KeyCreated | null>(null);
  const load = useCallback(() => api.keys().then(setKeys, (e: unknown) => setLoadError(plainMessage(e))), [api]);
  useEffect(() => void load(), [load]);

  return (
    <>
      <p className="lead">
        Scripts send an API key with every call (<code>Authorization: Bearer cb_…</code>). Give each script its own key, so you can see its last
        use and revoke it alone.
      </p>
      {created ? (
        <NewKey created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateKey
          api={api}
          hosted={hosted}
          onCreated={(k) => {
            setCreated(k);
            void load();
          }}
        />
      )}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <Problem message={loadError} />
        {keys === null ? null : keys.length === 0 ? (
          <EmptyState title="No API keys yet">
            <p>Create one above, copy it, and use it from your script. The same key works with OpenAI client libraries.</p>
          </EmptyState>
        ) : (
          <KeyTable keys={keys} api={api} onChange={load} />
        )}
      </section>
    </>
  );
}

function CreateKey({ api, hosted, onCreated }: { api: AdminApi; hosted: boolean; onCreated: (k: KeyCreated) => void }) {
  const nameId = useId();
  const expiryId = useId();
  const accountId = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['completions:write', 'completions:read']);
  const [days, setDays] = useState<number | null>(null);
  const [accounts, setAccounts] = useState<AccountView[]>([]);
  const [account, setAccount] = useState('');
  useEffect(() => {
    if (hosted) void api.accounts().then((list) => setAccounts(list.filter((a) => !a.disabled)), () => {});
  }, [api, hosted]);
  const create = useAction(() =>
    api.createKey({ name: name.trim(), scopes, expires_in_days: days, ...(hosted ? { account_id: account } : {}) }),
  );
  const ready = name.trim() !== '' && scopes.length > 0 && (!hosted || account !== '');

  return (
    <form
      className="card stack"
      aria-label="Create an API key"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!ready) return;
        const k = await create.run();
        if (k) {
          setName('');
          onCreated(k);
        }
      }}
    >
      <h2>Create a key</h2>
      {hosted && (
        <div className="field">
          <label htmlFor={accountId}>Account</label>
          <select id={accountId} value={account} onChange={(e) => setAccount(e.target.value)}>
            <option value="">Pick the account it acts for</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.id})
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} value={name} maxLength={80} placeholder="e.g. nightly summary script" onChange={(e) => setName(e.target.value)} />
      </div>
      <fieldset className="field">
        <legend>It may</legend>
        {(Object.entries(SCOPES) as [Scope, string][]).map(([scope, words]) => (
          <label className="choice" key={scope}>
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
            />
            {words} <code className="muted">{scope}</code>
          </label>
        ))}
        {scopes.length === 0 && <span className="problem inline">Pick at least one.</span>}
      </fieldset>
      <div className="field">
        <label htmlFor={expiryId}>Expires</label>
        <select id={expiryId} value={days ?? ''} onChange={(e) => setDays(e.target.value ? Number(e.target.value) : null)}>
          {EXPIRY.map((x) => (
            <option key={x.label} value={x.days ?? ''}>
              {x.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <button type="submit" className="primary" disabled={!ready || create.busy}>
          Create key
        </button>
      </div>
      <Problem message={create.error} />
    </form>
  );
}

function NewKey({ created, onDone }: { created: KeyCreated; onDone: () => void }) {
  return (
    <section className="card secret-once" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Your new key “{created.key.name}”</h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> ChatBridge keeps only a fingerprint of it, so a lost key cannot be shown again
        (create a new one instead).
      </p>
      <div className="secret-line">
        <code data-testid="new-key-secret">{created.secret}</code>
        <CopyButton text={created.secret} />
      </div>
      <button type="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

function KeyTable({ keys, api, onChange }: { keys: KeyView[]; api: AdminApi; onChange: () => void }) {
  const now = useNow(30_000);
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">May</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">
            <span className="sr-only">State</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id} className={k.revoked_at ? 'dim' : undefined}>
            <td>{k.name}</td>
            <td>
              <code>{k.hint}</code>
            </td>
            <td>{(Object.keys(SCOPES) as Scope[]).filter((s) => k.scopes.includes(s)).map((s) => SCOPES[s]).join(', ')}</td>
            <td>{k.last_used_at ? relative(k.last_used_at, now) : 'never'}</td>
            <td>{k.expires_at ? clockTime(k.expires_at, now) : 'never'}</td>
            <td className="actions">
              <KeyState k={k} now={now} api={api} onChange={onChange} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function KeyState({ k, now, api, onChange }: { k: KeyView; now: number; api: AdminApi; onChange: () => void }) {
  const revoke = useAction(() => api.revokeKey(k.id).then(onChange));
  if (k.revoked_at) return <Badge tone="quiet">revoked</Badge>;
  if (k.expires_at && Date.parse(k.expires_at) <= now) return <Badge tone="quiet">expired</Badge>;
  return (
    <>
      <ConfirmButton
        label="Revoke"
        confirmLabel="Revoke now"
        question={`Scripts using “${k.name}” stop working at once.`}
        busy={revoke.busy}
        onConfirm={() => void revoke.run()}
      />
      <Problem message={revoke.error} />
    </>
  );
}
