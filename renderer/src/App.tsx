import { lazy, Suspense, useEffect, useRef } from 'react';
import { changeSettings } from './actions.js';
import type { AdminApi, AdminState } from './api.js';
import { Problem } from './components/Problem.js';
import { useAction } from './hooks.js';
import { Accounts } from './pages/Accounts.js';
import { Agents } from './pages/Agents.js';
import { Caps } from './pages/Caps.js';
import { JobDetail } from './pages/JobDetail.js';
import { Jobs } from './pages/Jobs.js';
import { Keys } from './pages/Keys.js';
import { NoToken } from './pages/NoToken.js';
import { Overview } from './pages/Overview.js';
import { Settings } from './pages/Settings.js';
import { Webhooks } from './pages/Webhooks.js';
import { href, PAGES, pagesOf, useRoute, type Route } from './route.js';
import { useDashboard } from './store.js';

/** The charts (recharts) weigh more than the rest of the dashboard: their page loads when first opened. */
const Usage = lazy(async () => ({ default: (await import('./pages/Usage.js')).Usage }));

export function App() {
  const api = useDashboard((s) => s.api);
  const rejected = useDashboard((s) => s.rejected);
  if (!api || rejected) return <NoToken rejected={rejected} />;
  return <Shell api={api} />;
}

function Shell({ api }: { api: AdminApi }) {
  const route = useRoute();
  const admin = useDashboard((s) => s.admin);
  const title = route.page === 'jobs' && route.param ? 'Job' : PAGES.find((p) => p.id === route.page)!.title;
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    document.title = `${title} · ChatBridge`;
    // Moving focus to the new page's heading tells keyboard and screen-reader users where they are.
    if (!first.current) heading.current?.focus();
    first.current = false;
  }, [title, route.param]);

  return (
    <div className="shell">
      {/* The nav's dark column runs the page's whole height; its contents stay in view as the page scrolls. */}
      <nav className="sidebar" aria-label="Pages">
        <div className="sidebar-inner">
          <div className="brand">ChatBridge</div>
          <ul>
            {pagesOf(admin?.profile ?? 'personal').map((p) => (
              <li key={p.id}>
                <a href={href(p.id)} aria-current={p.id === route.page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
          <ConnectionState />
        </div>
      </nav>
      <main className="content">
        <header className="page-head">
          <h1 ref={heading} tabIndex={-1}>
            {title}
          </h1>
          {admin && <PauseAll paused={admin.settings.paused} api={api} />}
        </header>
        <ConnectionBanner hasState={admin !== null} />
        {admin ? <Page route={route} admin={admin} api={api} /> : <p className="note">Connecting to ChatBridge…</p>}
      </main>
    </div>
  );
}

function Page({ route, admin, api }: { route: Route; admin: AdminState; api: AdminApi }) {
  switch (route.page) {
    case 'overview':
      return <Overview admin={admin} />;
    case 'agents':
      return <Agents admin={admin} api={api} param={route.param} />;
    case 'caps':
      return <Caps admin={admin} api={api} />;
    case 'accounts':
      return <Accounts api={api} />;
    case 'keys':
      return <Keys api={api} hosted={admin.profile === 'hosted'} />;
    case 'webhooks':
      return <Webhooks api={api} />;
    case 'jobs':
      return route.param ? <JobDetail key={route.param} id={route.param} api={api} /> : <Jobs />;
    case 'usage':
      return (
        <Suspense fallback={<p className="note">Loading the charts…</p>}>
          <Usage admin={admin} api={api} />
        </Suspense>
      );
    case 'settings':
      return <Settings admin={admin} api={api} />;
  }
}

function ConnectionState() {
  const connection = useDashboard((s) => s.connection);
  const words = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' }[connection];
  return (
    <p className={`connection connection-${connection}`} role="status">
      <span className="dot" aria-hidden="true" /> {words}
    </p>
  );
}

function ConnectionBanner({ hasState }: { hasState: boolean }) {
  const connection = useDashboard((s) => s.connection);
  const retryInMs = useDashboard((s) => s.retryInMs);
  if (connection !== 'reconnecting') return null;
  return (
    <p className="banner banner-warn" role="alert">
      {hasState
        ? 'Lost contact with ChatBridge: what you see may be out of date.'
        : 'ChatBridge is not answering. Check that `chatbridge serve` (or the desktop app) is running.'}{' '}
      Trying again in {Math.round(retryInMs / 1000)} s.
    </p>
  );
}

function PauseAll({ paused, api }: { paused: boolean; api: AdminApi }) {
  const toggle = useAction(() => changeSettings(api, { paused: !paused }));
  return (
    <div className="pause-all">
      {paused && <span className="badge badge-warn">All agents paused: jobs wait in the queue</span>}
      <button type="button" className={paused ? 'primary' : undefined} disabled={toggle.busy} onClick={() => toggle.run()}>
        {paused ? 'Resume all agents' : 'Pause all agents'}
      </button>
      <Problem message={toggle.error} />
    </div>
  );
}
