import { useId, useState } from 'react';
import { PROVIDERS, PROVIDER_NAMES, type Provider } from '../../../main/core/providers.js';
import type { AdminApi } from '../api.js';
import type { DesktopBridge } from '../desktop.js';
import { useAction } from '../hooks.js';
import { href } from '../route.js';
import { Problem } from './Problem.js';

/**
 * "Add account": pick a provider (and a name), then log in to it in the new agent's page,
 * shown here (headless) or in a window of the desktop app.
 */
export function AddAccount({ api, desktop }: { api: AdminApi; desktop: DesktopBridge | null }) {
  const [provider, setProvider] = useState<Provider | null>(null);
  const [name, setName] = useState('');
  const nameId = useId();
  const add = useAction(async (chosen: Provider) => {
    const agent = await api.addAgent(chosen, name.trim() || undefined);
    // The desktop app shows the login in a window of its own; headless, this page shows it.
    window.location.hash = desktop ? href('agents') : href('agents', agent.id);
  });
  return (
    <section className="card stack" aria-labelledby="add-title">
      <h2 id="add-title">Add an account</h2>
      <p className="lead">
        ChatBridge opens the provider's login page in a browser of its own; you log in there as you would anywhere, and the new agent is ready
        the moment you are in. Your password goes to the provider only.
      </p>
      <fieldset className="provider-choice">
        <legend>Provider</legend>
        {PROVIDERS.map((p) => (
          <label key={p} className="choice">
            <input type="radio" name="provider" value={p} checked={provider === p} onChange={() => setProvider(p)} />
            {PROVIDER_NAMES[p]}
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor={nameId}>Name (optional)</label>
        <input id={nameId} value={name} maxLength={80} placeholder={provider ? `${PROVIDER_NAMES[provider]} work account` : 'Work account'} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="toolbar">
        <button type="button" className="primary" disabled={!provider || add.busy} onClick={() => provider && add.run(provider)}>
          {add.busy ? 'Opening the login page…' : 'Open the login page'}
        </button>
        <a href={href('agents')}>Cancel</a>
      </div>
      <Problem message={add.error} />
    </section>
  );
}
