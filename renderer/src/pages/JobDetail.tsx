import { useEffect, useState } from 'react';
import type { AdminApi, JobDetail as Detail, WebhookLog } from '../api.js';
import { plainMessage } from '../api.js';
import { JobStatus } from '../components/Badge.js';
import { ConfirmButton } from '../components/ConfirmButton.js';
import { CopyButton } from '../components/CopyButton.js';
import { DiagnosticBundle } from '../components/DiagnosticBundle.js';
import { Problem } from '../components/Problem.js';
import { WaitingReason } from '../components/WaitingReason.js';
import { clockTime, duration, fileSize, isActive, jobTime, localTimes, providerName } from '../format.js';
import { useAction, useNow } from '../hooks.js';
import { jobTimings } from '../job-timings.js';
import { href } from '../route.js';
import { useDashboard } from '../store.js';

export function JobDetail({ id, api }: { id: string; api: AdminApi }) {
  const [detail, setDetail] = useState<Detail | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  // Reload whenever the live feed reports a change of this job.
  const summary = useDashboard((s) => s.jobs.find((j) => j.id === id));
  // A queued job's reason to wait changes with the agents (one added, logged in, rested).
  const agents = useDashboard((s) => s.admin?.agents.map((a) => `${a.id}:${a.state}`).join(',') ?? '');
  const version = summary ? `${summary.status}/${summary.attempts}${summary.status === 'queued' ? `/${agents}` : ''}` : '';
  useEffect(() => {
    let current = true;
    api.job(id).then(
      (d) => current && setDetail(d),
      (e: unknown) => current && setLoadError(plainMessage(e)),
    );
    return () => {
      current = false;
    };
  }, [api, id, version]);
  const cancel = useAction(() => api.cancel(id).then(setDetail));
  const remove = useAction(async () => {
    await api.deleteJob(id);
    useDashboard.getState().removeJob(id);
    window.location.hash = href('jobs');
  });

  return (
    <>
      <p>
        <a href={href('jobs')}>← All jobs</a>
      </p>
      <Problem message={loadError} />
      {detail && (
        <>
          <div className="detail-head">
            <JobStatus status={detail.job.status} />
            <code>{detail.job.id}</code>
            <span className="muted">
              {/* A queued job has no agent, even when one tried it before (the attempts say who). */}
              {detail.job.agent_name && detail.job.status !== 'queued' ? `${detail.job.agent_name} · ` : ''}
              {providerName(detail.job.provider)}
            </span>
            {isActive(detail.job.status) && (
              <ConfirmButton
                label="Cancel job"
                confirmLabel="Cancel it"
                question="A caller waiting for the answer gets status 499."
                busy={cancel.busy}
                onConfirm={() => void cancel.run()}
              />
            )}
            {!isActive(detail.job.status) && (
              <ConfirmButton
                label="Delete job"
                confirmLabel="Delete it"
                question="Its prompt, files, answer, attempts and webhook log are removed for good; GET answers 404."
                busy={remove.busy}
                onConfirm={() => void remove.run()}
              />
            )}
          </div>
          <Problem message={cancel.error} />
          <Problem message={remove.error} />
          <Body detail={detail} />
          <Timings detail={detail} />
          <Attempts detail={detail} />
          <Diagnostics detail={detail} api={api} />
          <Webhook id={id} log={detail.webhook} final={!isActive(detail.job.status)} api={api} />
        </>
      )}
    </>
  );
}

function Body({ detail }: { detail: Detail }) {
  const { job } = detail;
  const pruned = detail.content_pruned_at && (
    <p className="note">
      Removed {jobTime(detail.content_pruned_at)}, after the retention period (<a href={href('settings')}>Settings</a>).
    </p>
  );
  return (
    <div className="two-col">
      <section aria-labelledby="prompt-title">
        <h2 id="prompt-title">Prompt</h2>
        {pruned || <pre className="text-block">{detail.prompt}</pre>}
        <Files detail={detail} />
      </section>
      <section aria-labelledby="answer-title">
        <h2 id="answer-title">Answer</h2>
        {job.status === 'succeeded' && pruned ? (
          pruned
        ) : job.response !== null ? (
          <>
            <pre className="text-block">{job.response}</pre>
            <CopyButton text={job.response} label="Copy answer" />
          </>
        ) : job.error ? (
          <p className="problem">
            {job.error.message} <code className="muted">{job.error.code}</code>
          </p>
        ) : (
          <p className="note">{job.status === 'queued' ? <WaitingReason detail={detail} /> : 'No answer yet: an agent is working on it.'}</p>
        )}
      </section>
    </div>
  );
}

/**
 * The files sent with the prompt, as the job describes them: the dashboard never has their
 * bytes (retention removes those with the prompt; the description stays).
 */
function Files({ detail }: { detail: Detail }) {
  const files = detail.job.attachments;
  if (files.length === 0) return null;
  return (
    <>
      <h3 id="files-title">{files.length === 1 ? '1 file' : `${files.length} files`}</h3>
      <ul className="files" aria-labelledby="files-title">
        {files.map((file, i) => (
          <li key={i}>
            <span className="file-name">{file.filename}</span>{' '}
            <span className="muted">
              {file.media_type} · {fileSize(file.bytes)} ·{' '}
              <code title={`SHA-256 ${file.sha256}`}>sha256 {file.sha256.slice(0, 12)}…</code>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

function Timings({ detail }: { detail: Detail }) {
  const { job, attempts } = detail;
  const active = isActive(job.status);
  // The figures of a waiting or running job grow while the page is open.
  const now = useNow(active ? 1_000 : 60_000);
  const t = jobTimings(detail, now);
  const tries = attempts.length === 1 ? '1 attempt' : `${attempts.length} attempts`;
  const rows: [string, string][] = [
    ['Sent', clockTime(job.created_at, now, { seconds: true, zone: true })],
    ['Waited in queue', attempts.length === 0 && active ? `${duration(t.firstWaitMs)} so far, not started yet` : duration(t.firstWaitMs)],
    ['Running time', attempts.length === 0 ? '—' : `${duration(t.runMs)} (${tries})`],
  ];
  if (attempts.length > 1 || t.betweenMs > 0) {
    const several = attempts.length > 1;
    const since = t.waitingAgainSince ? `, ${several ? 'back in the queue ' : ''}since ${jobTime(t.waitingAgainSince, now)}` : '';
    rows.push([several ? 'Between attempts' : 'Back in the queue', `${duration(t.betweenMs)}${since}`]);
  }
  rows.push(active ? ['So far', duration(t.totalMs)] : ['Took', duration(t.totalMs)]);
  rows.push(['Finished', job.finished_at ? clockTime(job.finished_at, now, { seconds: true, zone: true }) : '—']);
  if (job.variant) rows.push(['Variant asked for', job.variant]);
  // The model the provider's page said answered; unknown where the page does not say.
  if (job.model_used) rows.push(['Model', job.model_used]);
  if (job.conversation_ref) rows.push(['Conversation', job.conversation_ref]);
  if (Object.keys(job.metadata).length) rows.push(['Metadata', JSON.stringify(job.metadata)]);
  return (
    <section aria-labelledby="timings-title">
      <h2 id="timings-title">Timings</h2>
      <dl className="facts">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Attempts({ detail }: { detail: Detail }) {
  const agents = useDashboard((s) => s.admin?.agents);
  const nameOf = (id: string) => agents?.find((a) => a.id === id)?.name ?? id;
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts</h2>
      {detail.attempts.length === 0 ? (
        <p className="note">Not tried yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Agent</th>
              <th scope="col">Waited before</th>
              <th scope="col">Started</th>
              <th scope="col">Took</th>
              <th scope="col">Outcome</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {detail.attempts.map((a) => (
              <tr key={a.attempt}>
                <td>{a.attempt}</td>
                <td className="nowrap">{nameOf(a.agent_id)}</td>
                <td className="nowrap">{duration(a.waited_ms)}</td>
                <td className="nowrap">{jobTime(a.started_at)}</td>
                <td className="nowrap">{a.run_ms === null ? 'running' : duration(a.run_ms)}</td>
                <td>{a.outcome ? `${a.outcome}${a.error_code ? ` (${a.error_code})` : ''}` : '—'}</td>
                <td>{a.detail ? localTimes(a.detail) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Per failed attempt, what its agent kept of the page (only the newest bundles are kept). */
function Diagnostics({ detail, api }: { detail: Detail; api: AdminApi }) {
  const failed = detail.attempts.filter((a) => a.outcome !== null && a.outcome !== 'succeeded' && a.outcome !== 'cancelled');
  if (failed.length === 0) return null;
  return (
    <section aria-labelledby="diagnostics-title">
      <h2 id="diagnostics-title">Diagnostics</h2>
      {detail.diagnostics.length === 0 ? (
        <p className="note">No diagnostic bundle is kept for these attempts: only the newest 20 failures keep one, and a page that was gone leaves none.</p>
      ) : (
        <div className="stack">
          {detail.diagnostics.map((bundle) => (
            <DiagnosticBundle key={bundle.name} bundle={bundle} api={api} />
          ))}
        </div>
      )}
    </section>
  );
}

function Webhook({ id, log, final, api }: { id: string; log: WebhookLog | null; final: boolean; api: AdminApi }) {
  const [current, setCurrent] = useState(log);
  useEffect(() => setCurrent(log), [log]);
  const redeliver = useAction(() => api.redeliver(id).then(setCurrent));
  return (
    <section aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook</h2>
      {!current ? (
        <p className="note">{final ? 'This job was sent without a callback_url, so no webhook goes out for it.' : 'Nothing sent yet: a webhook goes out once the job is finished, if it has a callback_url.'}</p>
      ) : (
        <div className="card stack">
          <p>
            To <code>{current.url}</code>: <strong>{current.state}</strong>
            {current.next_attempt_at && ` · next try at ${jobTime(current.next_attempt_at)}`}
          </p>
          {current.attempts.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Round</th>
                  <th scope="col">Try</th>
                  <th scope="col">At</th>
                  <th scope="col">Took</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {current.attempts.map((a) => (
                  <tr key={`${a.round}-${a.attempt}`}>
                    <td>{a.round}</td>
                    <td>{a.attempt}</td>
                    <td>{jobTime(a.started_at)}</td>
                    <td>{duration(a.duration_ms)}</td>
                    <td>{a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? '—')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {final && (
            <div>
              <button type="button" disabled={redeliver.busy} onClick={() => redeliver.run()}>
                Send webhook again
              </button>
            </div>
          )}
          <Problem message={redeliver.error} />
        </div>
      )}
    </section>
  );
}
