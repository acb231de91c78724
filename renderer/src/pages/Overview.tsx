import type { AdminState, AgentView, JobSummary } from '../api.js';
import { describeAgent } from '../agent-state.js';
import { JobStatus } from '../components/Badge.js';
import { Devices } from '../components/Devices.js';
import { EmptyState } from '../components/EmptyState.js';
import { Meter } from '../components/Meter.js';
import { NoAgents } from '../components/NoAgents.js';
import { clockTime, providerName, relative } from '../format.js';
import { useNow } from '../hooks.js';
import { href } from '../route.js';
import { useDashboard } from '../store.js';

export function Overview({ admin }: { admin: AdminState }) {
  const jobs = useDashboard((s) => s.jobs);
  const now = useNow(5_000);
  const { status } = admin;
  const running = jobs.filter((j) => j.status === 'dispatched');
  const providers = Object.entries(status.providers).filter(([, p]) => p.agents_total > 0);
  const resting = admin.agents.filter((a) => a.state === 'resting').length;

  return (
    <>
      <div className="tiles">
        <Tile label="Agents ready" value={`${status.agents.idle} of ${status.agents.total}`} note={`${status.agents.busy} busy${resting ? `, ${resting} resting` : ''}`} />
        <Tile
          label="Queued"
          value={String(status.queue.depth)}
          note={status.queue.oldest_queued_at ? `oldest sent ${relative(status.queue.oldest_queued_at, now)}` : 'nothing waiting'}
        />
        <Tile label="Running now" value={String(running.length)} note={running.length ? 'see below' : 'no job running'} />
        <Tile
          label="This hour"
          value={String(status.global.used_this_hour)}
          note={`attempts started in the last 60 min · ${status.global.rate_limit_per_hour === null ? 'no overall cap' : `overall cap ${status.global.rate_limit_per_hour}`}`}
        />
      </div>

      <section aria-labelledby="providers-title">
        <h2 id="providers-title">Providers</h2>
        {providers.length === 0 ? (
          <NoAgents />
        ) : (
          <div className="cards">
            {providers.map(([provider, p]) => (
              <article className="card" key={provider} aria-label={providerName(provider)}>
                <h3>{providerName(provider)}</h3>
                <p className="big">
                  {p.agents_idle} <span className="of">idle of {p.agents_total}</span>
                </p>
                <NotIdle agents={admin.agents.filter((a) => a.provider === provider)} allPaused={admin.settings.paused} now={now} />
                <Meter used={p.used_this_hour} cap={p.rate_limit_per_hour} nextSlotAt={p.next_slot_at} />
              </article>
            ))}
          </div>
        )}
        {status.global.next_slot_at && (
          <p className="note">The overall hourly cap is reached; the next job can start at {clockTime(status.global.next_slot_at)}.</p>
        )}
      </section>

      {/* A desktop is one device, itself: the section is for instances sharing a database. */}
      {status.devices.length > 1 && <Devices devices={status.devices} />}

      <section aria-labelledby="running-title">
        <h2 id="running-title">Running now</h2>
        {running.length === 0 ? (
          <EmptyState title="No job is running">
            <p>
              Send a prompt with <code>POST /v1/completions</code> using an API key (create one on the <a href={href('keys')}>API keys</a> page); it
              shows up here while an agent works on it.
            </p>
          </EmptyState>
        ) : (
          <ul className="rows">
            {running.map((job) => (
              <RunningJob key={job.id} job={job} now={now} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** Why a provider's agents that are not idle are not: one line each, as the Agents page says it. */
function NotIdle({ agents, allPaused, now }: { agents: AgentView[]; allPaused: boolean; now: number }) {
  const waiting = agents.filter((a) => a.state !== 'idle' || allPaused);
  if (waiting.length === 0) return null;
  return (
    <ul className="not-idle">
      {waiting.map((agent) => {
        const { label, tone } = describeAgent(agent, allPaused, now);
        const why = agent.state === 'resting' && agent.cooldown_until ? `until ${clockTime(agent.cooldown_until, now)}` : agent.detail;
        return (
          <li key={agent.id}>
            <a href={href('agents')}>{agent.name}</a>: <span className={`tone-${tone}`}>{label}</span>
            {why ? <span className="muted"> · {why}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

function Tile({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div className="tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
      <div className="tile-note">{note}</div>
    </div>
  );
}

function RunningJob({ job, now }: { job: JobSummary; now: number }) {
  return (
    <li>
      <a className="row-link" href={href('jobs', job.id)}>
        <JobStatus status={job.status} />
        <span className="row-main">{job.prompt_excerpt}</span>
        <span className="row-meta">
          {job.agent_name ?? providerName(job.provider)} · sent {relative(job.created_at, now)}
        </span>
      </a>
    </li>
  );
}
