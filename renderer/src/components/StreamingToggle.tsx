import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

/**
 * Chat streaming, off by default: OpenAI clients that send `stream: true` get the answer as
 * it renders once it is on. Said plainly, because closing such a stream cancels its job.
 */
export function StreamingToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => Promise<unknown> }) {
  const change = useAction(onChange);
  return (
    <section aria-labelledby="streaming-title">
      <h2 id="streaming-title">Streaming</h2>
      <div className="card stack">
        <label className="choice">
          <input type="checkbox" checked={on} disabled={change.busy} onChange={(e) => void change.run(e.target.checked)} />
          Stream chat answers to clients that ask (<code>stream: true</code>)
        </label>
        <Problem message={change.error} />
        <p className="note">
          {on
            ? 'Chat clients that ask for a stream get the answer as the page renders it. A client that closes its stream before the answer cancels the job.'
            : 'Chat clients that ask for a stream are refused (400), as the API contract says; many coding tools always ask. Any script can still follow a job with GET /v1/completions/{id}/events.'}
        </p>
      </div>
    </section>
  );
}
