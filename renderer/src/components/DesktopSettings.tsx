import { useEffect, useId, useState } from 'react';
import { ApiError, type AgentView } from '../api.js';
import { desktopBridge, type DesktopBridge } from '../desktop.js';
import { providerName } from '../format.js';
import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

type DesktopState = Awaited<ReturnType<DesktopBridge['state']>>;
type HostKind = DesktopState['hosts'][string];

const HOSTS: Record<HostKind, string> = {
  view: "ChatBridge's own window",
  chrome: 'Google Chrome (its own profile)',
};

/** Settings only the desktop app has: start at login and the browser of each agent. */
export function DesktopSettings({ agents }: { agents: AgentView[] }) {
  const bridge = desktopBridge();
  return (
    <section aria-labelledby="desktop-title">
      <h2 id="desktop-title">Desktop app</h2>
      {bridge ? (
        <DesktopControls bridge={bridge} agents={agents} />
      ) : (
        <p className="note">
          Starting at login and the browser each agent uses are settings of the desktop app. Under <code>chatbridge serve</code> (no window),
          every agent runs in a Chromium profile of its own.
        </p>
      )}
    </section>
  );
}

/** The bridge's errors carry the main process's message; say what was being done, too. */
async function plainly<T>(doing: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    const reason = e instanceof Error && e.message ? e.message.replace(/\.?$/, '.') : 'it gave no reason.';
    throw new ApiError(0, 'DESKTOP', `The desktop app could not ${doing}: ${reason}`);
  }
}

function DesktopControls({ bridge, agents }: { bridge: DesktopBridge; agents: AgentView[] }) {
  const [state, setState] = useState<DesktopState | null>(null);
  const load = useAction(async () => setState(await plainly('read its settings', bridge.state())));
  const agentIds = agents.map((a) => a.id).join(',');
  // Again when an agent comes or goes, so a new agent's browser is known.
  useEffect(() => {
    void load.run();
  }, [bridge, agentIds]); // `load.run` is new at each render; these are what it depends on.

  const loginItem = useAction(async (enabled: boolean) => {
    await plainly(enabled ? 'turn on starting at login' : 'turn off starting at login', bridge.setOpenAtLogin(enabled)).finally(() => load.run());
  });

  return (
    <div className="card stack">
      <label className="choice">
        <input
          type="checkbox"
          checked={state?.openAtLogin ?? false}
          disabled={!state || loginItem.busy}
          onChange={(e) => void loginItem.run(e.target.checked)}
        />
        Start ChatBridge when I log in (in the tray, no window)
      </label>
      <Problem message={loginItem.error} />

      <h3>Browser for each agent</h3>
      <p className="note">
        Some sites, like Google sign-in, refuse to log in inside an app's own window; Google Chrome with a profile of its own works for them.
        Changing it restarts that agent's browser; a job it is running goes back to the queue.
      </p>
      {agents.length === 0 ? (
        <p className="note">No agents yet: add an account first.</p>
      ) : (
        agents.map((agent) => (
          <HostField key={agent.id} agent={agent} host={state?.hosts[agent.id] ?? null} bridge={bridge} onChanged={() => load.run()} />
        ))
      )}
      <Problem message={load.error} />
    </div>
  );
}

function HostField({ agent, host, bridge, onChanged }: { agent: AgentView; host: HostKind | null; bridge: DesktopBridge; onChanged: () => unknown }) {
  const id = useId();
  const [chosen, setChosen] = useState<HostKind | null>(null);
  const change = useAction(async (next: HostKind) => {
    setChosen(next);
    await plainly(`move ${agent.name} to ${HOSTS[next]}`, bridge.setHost(agent.id, next)).finally(() => {
      setChosen(null);
      onChanged();
    });
  });
  const value = chosen ?? host;
  return (
    <div className="cap-row">
      <label htmlFor={id}>
        {agent.name} <span className="muted">({providerName(agent.provider)})</span>
      </label>
      <div>
        <select id={id} value={value ?? ''} disabled={value === null || change.busy} onChange={(e) => void change.run(e.target.value as HostKind)}>
          {value === null && <option value="">…</option>}
          {(Object.entries(HOSTS) as [HostKind, string][]).map(([kind, words]) => (
            <option key={kind} value={kind}>
              {words}
            </option>
          ))}
        </select>
        <Problem message={change.error} />
      </div>
    </div>
  );
}
