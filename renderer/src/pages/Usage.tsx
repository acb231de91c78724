import { useEffect, useId, useState, type ReactElement } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AdminApi, AdminState, KeyView, UsageFigures, UsageFilter, UsageGroupView, UsageRange, UsageView } from '../api.js';
import { plainMessage } from '../api.js';
import { EmptyState } from '../components/EmptyState.js';
import { Problem } from '../components/Problem.js';
import { duration, providerName } from '../format.js';
import { useNow } from '../hooks.js';

const RANGES = { '24h': 'Last 24 hours', '7d': 'Last 7 days', '90d': 'Last 90 days' } satisfies Record<UsageRange, string>;

/** Each provider in its own brand-like colour, so the stacks read the same on every chart. */
const PROVIDER_COLOURS: Record<string, string> = {
  chatgpt: '#10a37f',
  claude: '#d97757',
  gemini: '#4285f4',
  deepseek: '#6b4fd8',
  qwen: '#e0a100',
  perplexity: '#20808d',
  none: '#9aa5b5',
};
const CODE_COLOURS = ['#c0392b', '#e67e22', '#8e44ad', '#a15c00', '#7f8c8d', '#d35400', '#2c3e50'];
/** The dashboard's own colours (styles.css): the median in the accent, the slow tail in the warning colour. */
const P50 = '#2f6fed';
const P95 = '#a15c00';
const CHART_HEIGHT = 220;
/** ResponsiveContainer measures its box; this is the size it draws at before (and where nothing can be measured). */
const INITIAL = { width: 860, height: CHART_HEIGHT };

/** A line through a single point draws nothing: up to this many points (a first day, a month of days), each is a dot too. */
const DOTS_UP_TO = 31;

/** Refreshed every minute while open: the current hour fills up as jobs finish. */
const REFRESH_MS = 60_000;

export function Usage({ admin, api }: { admin: AdminState; api: AdminApi }) {
  const [range, setRange] = useState<UsageRange>('24h');
  const [filter, setFilter] = useState<UsageFilter>({});
  const [usage, setUsage] = useState<UsageView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [keys, setKeys] = useState<KeyView[]>([]);
  const tick = useNow(REFRESH_MS);

  useEffect(() => {
    let current = true;
    api.keys().then((k) => current && setKeys(k), () => {});
    return () => {
      current = false;
    };
  }, [api]);

  useEffect(() => {
    let current = true;
    api.usage(range, filter).then(
      (u) => {
        if (!current) return;
        setUsage(u);
        setError(null);
      },
      (e: unknown) => current && setError(plainMessage(e)),
    );
    return () => {
      current = false;
    };
  }, [api, range, filter.key, filter.agent, tick]);

  const hourly = usage?.bucket_ms === 3_600_000;
  return (
    <>
      <p className="lead">
        Jobs that finished, from the job records themselves: kept for 90 days, through restarts, and after retention removed their prompts and
        answers.
      </p>
      <div className="toolbar usage-toolbar">
        <div role="group" aria-label="Range" className="segmented">
          {(Object.entries(RANGES) as [UsageRange, string][]).map(([id, label]) => (
            <button key={id} type="button" aria-pressed={range === id} onClick={() => setRange(id)}>
              {label}
            </button>
          ))}
        </div>
        <Choice
          label="Key"
          value={filter.key}
          all="All keys"
          options={keyOptions(keys, usage)}
          onChange={(key) => setFilter((f) => ({ ...f, key }))}
        />
        <Choice
          label="Agent"
          value={filter.agent}
          all="All agents"
          options={agentOptions(admin, usage)}
          onChange={(agent) => setFilter((f) => ({ ...f, agent }))}
        />
      </div>
      <Problem message={error} />
      {usage && (usage.totals.jobs === 0 ? <NoJobs range={range} filtered={Boolean(filter.key || filter.agent)} /> : <Report usage={usage} hourly={hourly} />)}
    </>
  );
}

function Report({ usage, hourly }: { usage: UsageView; hourly: boolean }) {
  const { totals } = usage;
  const label = (iso: string) => bucketLabel(iso, hourly);
  const providers = Object.keys(PROVIDER_COLOURS).filter((p) => usage.series.some((b) => b.providers[p]));
  const codes = Object.entries(totals.failures)
    .sort(([, a], [, b]) => b - a)
    .map(([code]) => code);
  const unit = hourly ? 'hour' : 'day';
  const dot = usage.series.filter((b) => b.figures.answer_ms).length <= DOTS_UP_TO ? { r: 3 } : false;
  const rows = usage.series.map((b) => ({
    start: b.start,
    ...b.providers,
    ...Object.fromEntries(codes.map((c) => [c, b.figures.failures[c] ?? 0])),
    p50: b.figures.answer_ms?.p50 ?? null,
    p95: b.figures.answer_ms?.p95 ?? null,
  }));

  return (
    <>
      <div className="tiles">
        <Tile label="Jobs" value={String(totals.jobs)} note={`${totals.cancelled} cancelled`} />
        <Tile label="Succeeded" value={percent(totals.succeeded, totals.jobs)} note={`${totals.succeeded} of ${totals.jobs}`} />
        <Tile label="Failed or expired" value={String(totals.failed + totals.expired)} note={codes.length ? codes.slice(0, 2).join(', ') : 'none'} />
        <Tile
          label="Time to answer"
          value={totals.answer_ms ? duration(totals.answer_ms.p50) : '—'}
          note={totals.answer_ms ? `median; 95% within ${duration(totals.answer_ms.p95)}` : 'no answer yet'}
        />
      </div>

      <ChartSection title={`Jobs per ${unit}, by provider`}>
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -12 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="start" tickFormatter={label} minTickGap={24} />
          <YAxis allowDecimals={false} />
          <Tooltip labelFormatter={(v) => longLabel(String(v), hourly)} />
          <Legend />
          {providers.map((p) => (
            <Bar key={p} dataKey={p} name={p === 'none' ? 'never ran' : providerName(p)} stackId="jobs" fill={PROVIDER_COLOURS[p]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ChartSection>

      <ChartSection title={`Failures per ${unit}, by code`} empty={codes.length === 0 ? 'No job failed or expired in this range.' : null}>
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -12 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="start" tickFormatter={label} minTickGap={24} />
          <YAxis allowDecimals={false} />
          <Tooltip labelFormatter={(v) => longLabel(String(v), hourly)} />
          <Legend />
          {codes.map((c, i) => (
            <Bar key={c} dataKey={c} name={c} stackId="failures" fill={CODE_COLOURS[i % CODE_COLOURS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ChartSection>

      <ChartSection title="Time to answer (from sending to the answer)" empty={totals.answer_ms ? null : 'No job succeeded in this range.'}>
        <LineChart data={rows} margin={{ top: 12, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="start" tickFormatter={label} minTickGap={24} />
          <YAxis tickFormatter={axisDuration} width={64} />
          <Tooltip labelFormatter={(v) => longLabel(String(v), hourly)} formatter={(ms) => duration(Number(ms))} />
          <Legend itemSorter="dataKey" />
          <Line dataKey="p50" name="median (p50)" stroke={P50} strokeWidth={2} dot={dot} connectNulls isAnimationActive={false} />
          <Line dataKey="p95" name="95th percentile" stroke={P95} strokeWidth={2} dot={dot} connectNulls isAnimationActive={false} />
        </LineChart>
      </ChartSection>

      <GroupTable title="By key" groups={usage.groups.key} />
      <GroupTable title="By agent" groups={usage.groups.agent} />
    </>
  );
}

/** A chart with its heading; `empty` says in words why there is nothing to draw. */
function ChartSection({ title, empty = null, children }: { title: string; empty?: string | null; children: ReactElement }) {
  const id = useId();
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {empty ? (
        <p className="note">{empty}</p>
      ) : (
        <figure className="card chart" aria-labelledby={id}>
          <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={INITIAL}>
            {children}
          </ResponsiveContainer>
        </figure>
      )}
    </section>
  );
}

function GroupTable({ title, groups }: { title: string; groups: UsageGroupView[] }) {
  const id = useId();
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <table aria-labelledby={id}>
        <thead>
          <tr>
            <th scope="col">{title.replace('By ', '').replace(/^./, (c) => c.toUpperCase())}</th>
            <th scope="col">Jobs</th>
            <th scope="col">Succeeded</th>
            <th scope="col">Failed</th>
            <th scope="col">Expired</th>
            <th scope="col">Cancelled</th>
            <th scope="col">Queue p50 / p95</th>
            <th scope="col">Run p50 / p95</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={g.id ?? ''}>
              <td>{g.name}</td>
              <td>{g.figures.jobs}</td>
              <td>{g.figures.succeeded}</td>
              <td>{g.figures.failed}</td>
              <td>{g.figures.expired}</td>
              <td>{g.figures.cancelled}</td>
              <td>{pair(g.figures.queue_ms)}</td>
              <td>{pair(g.figures.run_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Choice(props: { label: string; value: string | undefined; all: string; options: [string, string][]; onChange: (value: string | undefined) => void }) {
  const id = useId();
  return (
    <span className="choice-field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value ?? ''} onChange={(e) => props.onChange(e.target.value || undefined)}>
        <option value="">{props.all}</option>
        {props.options.map(([value, name]) => (
          <option key={value} value={value}>
            {name}
          </option>
        ))}
      </select>
    </span>
  );
}

function NoJobs({ range, filtered }: { range: UsageRange; filtered: boolean }) {
  return (
    <EmptyState title={`No finished jobs in the ${RANGES[range].toLowerCase()}`}>
      <p>{filtered ? 'Nothing matches this key and agent: choose "All" to see every job.' : 'Jobs show here once they finish: succeeded, failed, cancelled or expired.'}</p>
    </EmptyState>
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

/** Every key there is (revoked ones too: their jobs are history), the dashboard's token, and keys seen in the figures. */
function keyOptions(keys: KeyView[], usage: UsageView | null): [string, string][] {
  const options = new Map<string, string>(keys.map((k) => [k.id, k.revoked_at ? `${k.name} (revoked)` : k.name]));
  options.set('admin', 'Admin token (dashboard)');
  for (const g of usage?.groups.key ?? []) if (g.id !== null && !options.has(g.id)) options.set(g.id, g.name);
  return [...options];
}

/** The agents there are, and removed ones still seen in the figures. */
function agentOptions(admin: AdminState, usage: UsageView | null): [string, string][] {
  const options = new Map<string, string>(admin.agents.map((a) => [a.id, `${a.name} (${providerName(a.provider)})`]));
  for (const g of usage?.groups.agent ?? []) if (g.id !== null && !options.has(g.id)) options.set(g.id, g.name);
  return [...options];
}

/** "0 s", "45 s", "1.5 min": whole ticks stay distinct, unlike rounded durations. */
function axisDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  return `${(ms / 60_000).toFixed(1).replace(/\.0$/, '')} min`;
}

const pair = (p: UsageFigures['run_ms']) => (p ? `${duration(p.p50)} / ${duration(p.p95)}` : '—');
const percent = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;

/** "14:00" for an hour, "3 Mar" for a day: short enough for an axis. */
function bucketLabel(iso: string, hourly: boolean): string {
  const d = new Date(iso);
  return hourly ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}

/** "3 Mar, 14:00–15:00" or "Tue 3 Mar", for the tooltip. */
function longLabel(iso: string, hourly: boolean): string {
  const d = new Date(iso);
  const day = d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  if (!hourly) return day;
  const end = new Date(d.getTime() + 3_600_000);
  const time = (x: Date) => x.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return `${day}, ${time(d)}–${time(end)}`;
}
