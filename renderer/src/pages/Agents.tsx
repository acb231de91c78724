import { useEffect, useId, useState } from 'react';
import { describeAgent } from '../agent-state.js';
import { changeAgent } from '../actions.js';
import type { AdminApi, AdminState, AgentView } from '../api.js';
import { Badge } from '../components/Badge.js';
import { CapField } from '../components/CapField.js';
import { Meter } from '../components/Meter.js';
import { NoAgents } from '../components/NoAgents.js';
import { Problem } from '../components/Problem.js';
import { providerName } from '../format.js';
import { useAction } from '../hooks.js';

export function Agents({ admin, api }: { admin: AdminState; api: AdminApi }) {
  if (admin.agents.length === 0) return <NoAgents />;
  return (
    <>
      <p className="lead">
        Each agent is one logged-in chat account and runs one job at a time. Adding an account, logging in again and watching an agent work
        happen in the desktop app.
      </p>
      <div className="agent-list">
        {admin.agents.map((agent) => (
          <AgentCard key={agent.id} agent={agent} allPaused={admin.settings.paused} api={api} />
        ))}
      </div>
    </>
  );
}

function AgentCard({ agent, allPaused, api }: { agent: AgentView; allPaused: boolean; api: AdminApi }) {
  const state = describeAgent(agent, allPaused);
  const toggle = useAction(() => changeAgent(api, agent.id, { enabled: !agent.enabled }));
  return (
    <article className="card agent" aria-label={agent.name}>
      <header className="agent-head">
        <h3>{agent.name}</h3>
        <span className="muted">{providerName(agent.provider)}</span>
        <Badge tone={state.tone}>{state.label}</Badge>
      </header>
      <p className="hint">{state.hint}</p>
      {agent.detail && (agent.state === 'needs_login' || agent.state === 'error') && <p className="hint">What it reports: {agent.detail}</p>}
      <Meter used={agent.used_this_hour} cap={agent.cap_per_hour} nextSlotAt={agent.next_slot_at} />
      <div className="agent-controls">
        <RenameField agent={agent} api={api} />
        <CapField label="Cap" value={agent.cap_per_hour} onSave={(cap) => changeAgent(api, agent.id, { cap_per_hour: cap })} />
        <button type="button" disabled={toggle.busy} onClick={() => toggle.run()}>
          {agent.enabled ? 'Pause this agent' : 'Enable this agent'}
        </button>
      </div>
      <Problem message={toggle.error} />
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
