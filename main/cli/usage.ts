import type { UsageFigures } from '../contract/admin/index.js';
import { timestamp } from '../core/timestamps.js';
import { systemClock } from '../core/clock.js';
import { USAGE_DAYS, USAGE_GROUPS, type Percentiles, type UsageGroup } from '../queue/usage-history.js';
import { ADMIN_KEY_ID, UsageReport } from '../service/usage-report.js';
import { parse, parseDuration, UsageError } from './args.js';
import { DATABASE_OPTION, withCommandStorage } from './database.js';
import { DAY_MS } from '../core/timestamps.js';

/**
 * `chatbridge usage`: jobs and timings per provider, agent or key, read from the data dir, or
 * with --database from the jobs of every instance sharing that PostgreSQL (no server need
 * run). A table for a person; --json for scripts.
 */
export async function usage(args: string[]): Promise<void> {
  const { values } = parse(args, {
    'data-dir': { type: 'string' },
    ...DATABASE_OPTION,
    since: { type: 'string' },
    by: { type: 'string' },
    json: { type: 'boolean' },
  });
  const sinceMs = parseDuration(values.since ?? '7d');
  if (sinceMs > USAGE_DAYS * DAY_MS) throw new UsageError(`Usage history reaches ${USAGE_DAYS} days back: use --since ${USAGE_DAYS}d or less.`);
  const by = (values.by ?? 'provider') as UsageGroup;
  if (!USAGE_GROUPS.includes(by)) throw new UsageError(`--by takes ${USAGE_GROUPS.join(', ')}, not "${values.by}".`);

  const print = async (report: UsageReport) => {
    const { since, until, rows, totals } = await report.groups(sinceMs, by);
    process.stdout.write(
      values.json ? `${JSON.stringify({ since: timestamp(since), until: timestamp(until), by, totals, groups: rows }, null, 2)}\n` : renderUsage(by, since, until, rows, totals),
    );
  };

  await withCommandStorage(values, async (storage) =>
    print(new UsageReport(storage.usageHistory, await storage.agentNames(), storage.keys, systemClock)),
  );
}

const COLUMNS = ['jobs', 'ok', 'failed', 'cancel', 'expired', 'queue p50/p95', 'run p50/p95', 'answer p50/p95'];

export function renderUsage(by: UsageGroup, since: number, until: number, rows: { id: string | null; name: string; figures: UsageFigures }[], totals: UsageFigures): string {
  const head = `Jobs that finished from ${timestamp(since)} to ${timestamp(until)}, by ${by}:`;
  if (totals.jobs === 0) return `${head} none.\n`;
  // The id after a name tells two of the same name apart; the admin token has one, named in full.
  const label = (r: { id: string | null; name: string }) =>
    by === 'provider' || r.id === null || r.id === ADMIN_KEY_ID || r.name === r.id ? r.name : `${r.name} (${r.id})`;
  const table = [
    [by, ...COLUMNS],
    ...rows.map((r) => [label(r), ...cells(r.figures)]),
    ['total', ...cells(totals)],
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  const lines = [head, '', ...table.map(line)];
  const failures = Object.entries(totals.failures).sort(([, a], [, b]) => b - a);
  if (failures.length > 0) lines.push('', `Failures by code: ${failures.map(([code, n]) => `${code} ${n}`).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function cells(f: UsageFigures): string[] {
  return [f.jobs, f.succeeded, f.failed, f.cancelled, f.expired].map(String).concat([pair(f.queue_ms), pair(f.run_ms), pair(f.answer_ms)]);
}

const pair = (p: Percentiles | null) => (p ? `${ms(p.p50)} / ${ms(p.p95)}` : '-');

/** 850ms, 12.3s, 4.0min: short enough for a table. */
function ms(n: number): string {
  if (n < 1_000) return `${n}ms`;
  if (n < 60_000) return `${(n / 1_000).toFixed(1)}s`;
  return `${(n / 60_000).toFixed(1)}min`;
}
