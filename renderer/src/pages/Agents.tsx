import { useEffect, useId, useState } from 'react';
import { describeAgent } from '../agent-state.js';
import { changeAgent } from '../actions.js';
import type { AdminApi, AdminState, AgentView, SiteCheckView } from '../api.js';
import { AddAccount } from '../components/AddAccount.js';
import { AgentPanel } from '../components/AgentPanel.js';
import { Badge } from '../components/Badge.js';
import { CapField } from '../components/CapField.js';
import { PauseField } from '../components/PauseField.js';
import { ProxyField } from '../components/ProxyField.js';
import { ConfirmButton } from '../components/ConfirmButton.js';
import { SiteCheckResult } from '../components/SiteCheckResult.js';
import { EmptyState } from '../components/EmptyState.js';
import { Meter } from '../components/Meter.js';
import { NoAgents } from '../components/NoAgents.js';
import { Problem } from '../components/Problem.js';
import { desktopBridge, type DesktopBridge } from '../desktop.js';
import { providerName } from '../format.js';
import { useAction, useNow } from '../hooks.js';
import { href } from '../route.js';

/**
 * `param`: `add` for "Add account", an agent's id for its page (login or watch), or
 * `<id>/login` for its page with a login opened (the link `chatbridge agents add` prints).
 */
export function Agents({ admin, api, param }: { admin: AdminState; api: AdminApi; param: string | null }) {
  const desktop = desktopBridge();
  if (param === 'add') return <AddAccount api={api} desktop={desktop} />;
  const [agentId, action] = param?.split('/') ?? [];
  const shown = agentId ? admin.agents.find((a) => a.id === agentId) : undefined;
  return (
    <>
      {param && !shown && (
        <EmptyState title="That agent is gone">
          <p>
            It was removed. <a href={href('agents')}>See the agents</a>.
          </p>
        </EmptyState>
      )}
      {shown && <AgentPanel key={shown.id} agent={shown} api={api} openLogin={action === 'login'} />}
      {admin.agents.length === 0 ? (
        !param && <NoAgents />
      ) : (
        <>
          <div className="toolbar section-head">
            <p className="lead">Each agent is one logged-in chat account and runs one job at a time.</p>
            <a className="button primary" href={href('agents', 'add')}>
              Add account
            </a>
          </div>
          <div className="agent-list">
            {admin.agents.map((agent) => (
              <AgentCard key={agent.id} agent={agent} settings={admin.settings} api={api} desktop={desktop} />
            ))}
          </div>
        </>
      )}
    </>
  );
}

function AgentCard({ agent, settings, api, desktop }: { agent: AgentView; settings: AdminState['settings']; api: AdminApi; desktop: DesktopBridge | null }) {
  // "in 14 s" must count down while the card is on screen.
  const now = useNow(5_000);
  const state = describeAgent(agent, settings.paused, now);
  const toggle = useAction(() => changeAgent(api, agent.id, { enabled: !agent.enabled }));
  const logIn = useAction(async () => {
    await api.logIn(agent.id);
    // The desktop app opened a login window; headless, the login shows on this page.
    if (!desktop) window.location.hash = href('agents', agent.id);
  });
  const watch = useAction(async () => {
    if (desktop) return desktop.watch(agent.id);
    window.location.hash = href('agents', agent.id);
  });
  const remove = useAction(() => api.removeAgent(agent.id));
  const [siteCheck, setSiteCheck] = useState<SiteCheckView | null>(null);
  const checkSite = useAction(async () => setSiteCheck(await api.checkSite(agent.id)));
  const recheck = useAction(() => api.recheck(agent.id));
  // A login is what a logged-out agent needs; one set aside (a changed site, a challenge, a
  // browser restart) may need its page seen too. A resting agent is logged in: it needs no login.
  const needsLogin = agent.pairing !== null || agent.state === 'needs_login';
  const offerLogIn = needsLogin || agent.state === 'error';
  // Set aside or resting after a usage limit: it looks again on its own, or now.
  const waiting = (agent.state === 'error' || agent.cooldown_until !== null) && agent.enabled && !agent.pairing;
  return (
    <article className="card agent" aria-label={agent.name}>
      <header className="agent-head">
        <h3>{agent.name}</h3>
        <span className="muted">{providerName(agent.provider)}</span>
        <Badge tone={state.tone}>{state.label}</Badge>
        <span className="agent-actions">
          {waiting && (
            <button type="button" className={needsLogin ? undefined : 'primary'} disabled={recheck.busy} onClick={() => recheck.run()}>
              Check now
            </button>
          )}
          {offerLogIn && (
            <button type="button" className={needsLogin ? 'primary' : undefined} disabled={logIn.busy} onClick={() => logIn.run()}>
              {agent.pairing ? 'Back to the login' : 'Log in'}
            </button>
          )}
          {agent.state !== 'needs_login' && agent.state !== 'busy' && !agent.pairing && (
            <button type="button" disabled={checkSite.busy} onClick={() => checkSite.run()}>
              {checkSite.busy ? 'Checking…' : 'Check site'}
            </button>
          )}
          <button type="button" disabled={watch.busy} onClick={() => watch.run()}>
            Watch
          </button>
        </span>
      </header>
      <p className="hint">{state.hint}</p>
      {agent.detail && (agent.state === 'needs_login' || agent.state === 'error') && !agent.pairing && <p className="hint">What it reports: {agent.detail}</p>}
      <Meter used={agent.used_this_hour} cap={agent.cap_per_hour} nextSlotAt={agent.next_slot_at} />
      <div className="agent-controls">
        <RenameField agent={agent} api={api} />
        <CapField label="Cap" value={agent.cap_per_hour} onSave={(cap) => changeAgent(api, agent.id, { cap_per_hour: cap })} />
        <PauseField label="Pause" value={agent.pause_ms} fallback={settings.pause_ms} onSave={(ms) => changeAgent(api, agent.id, { pause_ms: ms })} />
        <ProxyField value={agent.proxy} onSave={(proxy) => changeAgent(api, agent.id, { proxy })} />
        <button type="button" disabled={toggle.busy} onClick={() => toggle.run()}>
          {agent.enabled ? 'Pause this agent' : 'Enable this agent'}
        </button>
        <ConfirmButton
          label="Remove"
          confirmLabel="Remove it"
          question={`Remove ${agent.name} and its login?`}
          busy={remove.busy}
          onConfirm={() => void remove.run()}
        />
      </div>
      {siteCheck && <SiteCheckResult check={siteCheck} />}
      <Problem message={toggle.error ?? logIn.error ?? watch.error ?? remove.error ?? checkSite.error ?? recheck.error} />
    </article>
  );
}

function RenameField({ agent, api }: { agent: AgentView; api: AdminApi }) {
  const id = useId();
  const [name, setName] = useState(agent.name);
  useEffect(() => setName(agent.name), [agent.name]);
  const rename = useAction((next: string) => changeAgent(api, agent.id, { name: next }));
  const next = name.trim();
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (next && next !== agent.name) void rename.run(next);
      }}
    >
      <label htmlFor={id}>Name</label>
      <input id={id} value={name} maxLength={80} onChange={(e) => setName(e.target.value)} />
      <button type="submit" disabled={!next || next === agent.name || rename.busy}>
        Rename
      </button>
      <Problem message={rename.error} />
    </form>
  );
}
