import { useEffect, useRef } from 'react';
import type { AdminApi, AgentView } from '../api.js';
import { providerName } from '../format.js';
import { useAction } from '../hooks.js';
import { href } from '../route.js';
import { AgentScreen } from './AgentScreen.js';
import { Problem } from './Problem.js';

/**
 * One agent's page in the dashboard: a login (pairing, or logging in again) the person
 * does in it, or a view-only look at it working. The server's `pairing` step and the
 * agent's state say where the login stands.
 */
export function AgentPanel({ agent, api, openLogin = false }: { agent: AgentView; api: AdminApi; openLogin?: boolean }) {
  const provider = providerName(agent.provider);
  // Seen a login on this panel: when it ends with the agent idle, that is the success to show.
  const hadLogin = useRef(agent.pairing !== null);
  if (agent.pairing) hadLogin.current = true;
  const ready = agent.state === 'idle' || agent.state === 'busy';
  // Resting after a usage limit is still logged in: the panel offers no login for it.
  const loggedIn = ready || agent.state === 'resting';
  const paired = hadLogin.current && !agent.pairing && ready;

  const check = useAction(() => api.logIn(agent.id));
  const start = useAction(() => api.logIn(agent.id));
  const close = () => {
    if (agent.pairing) void api.endLogIn(agent.id).catch(() => {});
    window.location.hash = href('agents');
  };
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [agent.id]);
  // Opened from a login link: start the login unless one is open or the agent is already in.
  useEffect(() => {
    if (openLogin && !agent.pairing && !loggedIn) void start.run();
    // Once, when the panel opens: later changes of state are the login's own.
  }, [agent.id, openLogin]);

  let title: string;
  let words: string;
  if (agent.pairing === 'login') {
    title = `Log in to ${provider} · ${agent.name}`;
    words = `Log in to ${provider} in the page below as you would in your own browser. ChatBridge notices when you are in; if it does not, press “I have logged in”.`;
  } else if (agent.pairing === 'checking') {
    title = `Log in to ${provider} · ${agent.name}`;
    words = 'Checking whether you are logged in…';
  } else if (paired) {
    title = `${agent.name} is ready`;
    words = `You are logged in: ${agent.name} takes ${provider} jobs from now on.`;
  } else if (loggedIn) {
    title = `Watching ${agent.name}`;
    words = 'Its page as it is now. You can watch it work; the page takes no clicks outside a login.';
  } else {
    title = `${agent.name} is not logged in`;
    words = `Press “Log in” to open ${provider}'s login page here.`;
  }

  return (
    <section className="card stack agent-panel" aria-labelledby="panel-title">
      <div className="panel-head">
        <h2 id="panel-title" ref={heading} tabIndex={-1}>
          {title}
        </h2>
        <div className="toolbar">
          {agent.pairing === 'login' && (
            <button type="button" className="primary" disabled={check.busy} onClick={() => check.run()}>
              I have logged in
            </button>
          )}
          {!agent.pairing && !loggedIn && (
            <button type="button" className="primary" disabled={start.busy} onClick={() => start.run()}>
              Log in
            </button>
          )}
          <button type="button" onClick={close}>
            {paired ? 'Done' : agent.pairing ? 'Cancel' : 'Close'}
          </button>
        </div>
      </div>
      <p className={paired ? 'banner banner-good' : 'hint'} role="status">
        {words}
      </p>
      <Problem message={check.error ?? start.error} />
      <AgentScreen api={api} agentId={agent.id} interactive={agent.pairing === 'login'} label={`${agent.name}'s page`} />
    </section>
  );
}
