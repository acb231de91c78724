import { useState } from 'react';
import type { JobSummary } from '../api.js';
import { JobStatus } from '../components/Badge.js';
import { EmptyState } from '../components/EmptyState.js';
import { duration, isActive, providerName, relative } from '../format.js';
import { useNow } from '../hooks.js';
import { href } from '../route.js';
import { JOB_LIMIT, useDashboard } from '../store.js';

const FILTERS = {
  all: { label: 'All', keep: () => true },
  active: { label: 'Waiting or running', keep: (j: JobSummary) => isActive(j.status) },
  problems: { label: 'Failed, cancelled or expired', keep: (j: JobSummary) => ['failed', 'cancelled', 'expired'].includes(j.status) },
} as const;
type Filter = keyof typeof FILTERS;

/** The model the page named after the answer, and the variant asked for where one was. */
function ModelCell({ job }: { job: JobSummary }) {
  if (!job.model_used && !job.variant) return <span className="muted">—</span>;
  return (
    <>
      {job.model_used ?? <span className="muted">not named</span>}
      {job.variant && <div className="muted small">asked: {job.variant}</div>}
    </>
  );
}

export function Jobs() {
  const jobs = useDashboard((s) => s.jobs);
  const [filter, setFilter] = useState<Filter>('all');
  const now = useNow(10_000);
  const shown = jobs.filter(FILTERS[filter].keep);

  if (jobs.length === 0) {
    return (
      <EmptyState title="No jobs yet">
        <p>
          Every prompt sent to <code>/v1/completions</code> or <code>/v1/chat/completions</code> becomes a job and appears here as it runs. Create a
          key on the <a href={href('keys')}>API keys</a> page, then for example:
        </p>
        <pre>{`curl -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\\n  -d '{"prompt": "Say hello"}' ${window.location.origin}/v1/completions`}</pre>
      </EmptyState>
    );
  }
  return (
    <>
      <div className="toolbar" role="group" aria-label="Show">
        {(Object.entries(FILTERS) as [Filter, (typeof FILTERS)[Filter]][]).map(([id, f]) => (
          <button key={id} type="button" aria-pressed={filter === id} onClick={() => setFilter(id)}>
            {f.label}
          </button>
        ))}
        <span className="muted">The {JOB_LIMIT} most recent jobs, updated live.</span>
      </div>
      {shown.length === 0 ? (
        <p className="note">No job matches this filter.</p>
      ) : (
        <table className="jobs">
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Prompt</th>
              <th scope="col">Agent</th>
              <th scope="col">Model</th>
              <th scope="col">Tries</th>
              <th scope="col">Sent</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((job) => (
              <tr key={job.id}>
                <td>
                  <JobStatus status={job.status} />
                </td>
                <td className="prompt-cell">
                  <a href={href('jobs', job.id)}>{job.prompt_excerpt || '(empty prompt)'}</a>
                  {job.error && <div className="problem inline">{job.error.message}</div>}
                </td>
                {/* A queued job has no agent yet, even one re-queued after an attempt. */}
                <td>{(job.status !== 'queued' && job.agent_name) || providerName(job.provider)}</td>
                <td>
                  <ModelCell job={job} />
                </td>
                <td>{job.attempts}</td>
                <td>{relative(job.created_at, now)}</td>
                <td>{job.took_ms === null ? '—' : duration(job.took_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
