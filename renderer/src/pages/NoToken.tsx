/** Shown without a token, or when the server refused it: how to open the dashboard properly. */
export function NoToken({ rejected }: { rejected: boolean }) {
  return (
    <main className="no-token">
      <h1>{rejected ? 'This dashboard link is no longer valid' : 'Open the dashboard with its link'}</h1>
      <p>
        {rejected
          ? 'ChatBridge did not accept the token in the link you opened. It may come from another data folder or an older setup.'
          : 'The dashboard needs the private link that ChatBridge prints when it starts, so that only you can change its settings.'}
      </p>
      <ol>
        <li>
          In a terminal, run <code>npx chatbridge serve</code> (or look at the terminal where it already runs).
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
