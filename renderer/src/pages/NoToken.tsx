/** Shown without a token, or when the server refused it: how to open the dashboard properly. */
export function NoToken({ rejected }: { rejected: boolean }) {
  return (
    <main className="no-token">
      <h1>{rejected ? 'The dashboard link changed: open the new one' : 'Open the dashboard with its link'}</h1>
      <p>
        {rejected
          ? 'ChatBridge no longer accepts the link this page was opened with: its admin token was replaced (chatbridge admin-token --rotate), or the link comes from another data folder. Nothing you did here is lost; open the new link.'
          : 'The dashboard needs its private link, so that only you can change its settings. ChatBridge prints it when it starts in a terminal, and on request.'}
      </p>
      <ol>
        <li>
          In a terminal, run <code>npx chatbridge dashboard</code> while ChatBridge runs (or <code>npx chatbridge serve</code> to start it).
        </li>
        <li>
          Find the line that starts with <code>dashboard:</code>, for example
          <br />
          <code>dashboard: http://127.0.0.1:PORT/#token=cba_…</code>
        </li>
        <li>Open that whole address in this browser. The token stays in this tab and is removed from the address bar.</li>
      </ol>
      <p className="muted">The token is stored in the file admin-token in ChatBridge's data folder. Anyone with it can change your settings: do not share the link.</p>
    </main>
  );
}
