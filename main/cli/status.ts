import type { Status } from '../contract/schemas.js';
import { resolveDataDir } from '../core/data-dir.js';
import { PROVIDERS } from '../core/providers.js';
import { parse, UsageError } from './args.js';
import { localTime } from './local-time.js';
import { notRunning, serverOrSimulation } from './server-client.js';
import { CLI } from '../core/cli-name.js';

/** `chatbridge status`: the figures of GET /v1/status, asked of the running server. */
export async function status(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, json: { type: 'boolean' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const server = await serverOrSimulation(dataDir);
  if (!server) throw notRunning(dataDir, `Start it: ${CLI} serve`);
  const res = await server.call('GET', '/v1/status');
  if (!res.ok) throw new UsageError(`ChatBridge at ${server.url} answered HTTP ${res.status} to GET /v1/status.`);
  const report = (await res.json()) as Status;
  if (values.json) return void process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const simulation = server.dataDir === dataDir ? '' : `The simulation (serve --simulate); for other commands: --data-dir ${server.dataDir}\n`;
  process.stdout.write(`${simulation}${renderStatus(report)}`);
}

/** "cap 10" or "no cap", after a count. */
const capText = (limit: number | null) => (limit === null ? 'no cap' : `cap ${limit}`);

/** Times in this terminal's local time and how far off they are; the JSON keeps the API's UTC. */
export function renderStatus(s: Status, now = Date.now()): string {
  const at = (iso: string) => localTime(iso, now);
  const device = s.devices[0];
  const resting = s.devices
    .filter((d) => d.online || d.paused)
    .flatMap((d) => d.agents)
    .filter((a) => a.state === 'resting').length;
  const lines = [
    `ChatBridge at ${device?.base_url ?? '?'}: ${device?.paused ? `PAUSED (${CLI} resume)` : 'running'}`,
    ...(s.devices.length > 1 ? [`Devices: ${s.devices.map((d) => `${d.name} (${d.online ? 'online' : d.paused ? 'paused' : 'offline'})`).join(', ')}`] : []),
    `Queue:   ${s.queue.depth} queued${s.queue.oldest_queued_at ? `, oldest since ${at(s.queue.oldest_queued_at)}` : ''}`,
    `Agents:  ${s.agents.idle} idle, ${s.agents.busy} busy${resting ? `, ${resting} resting after a usage limit` : ''}, ${s.agents.total} in all; rotation ${s.rotation}`,
    `Global:  ${s.global.used_this_hour} used this hour, ${capText(s.global.rate_limit_per_hour)}${s.global.next_slot_at ? `, next slot ${at(s.global.next_slot_at)}` : ''}`,
    '',
    `${'provider'.padEnd(12)}${'idle/total'.padEnd(12)}${'used/hour'.padEnd(11)}${'cap'.padEnd(8)}next slot`,
    ...PROVIDERS.map((p) => {
      const v = s.providers[p]!;
      return `${p.padEnd(12)}${`${v.agents_idle}/${v.agents_total}`.padEnd(12)}${String(v.used_this_hour).padEnd(11)}${(v.rate_limit_per_hour === null ? '-' : String(v.rate_limit_per_hour)).padEnd(8)}${v.next_slot_at ? at(v.next_slot_at) : '-'}`;
    }),
  ];
  // Several devices share a database: each one's agents under its name.
  const several = s.devices.length > 1;
  for (const d of s.devices.filter((d) => d.agents.length > 0)) {
    lines.push('', several ? `agents on ${d.name}${d.online || d.paused ? '' : ' (offline)'}:` : 'agents:');
    for (const a of d.agents) {
      const until = a.state === 'resting' && a.cooldown_until ? ` until ${at(a.cooldown_until)}` : '';
      lines.push(
        `  ${a.id}  ${a.provider.padEnd(10)} ${a.state.padEnd(11)} ${a.used_this_hour} this hour (${capText(a.rate_limit_per_hour)})  "${a.name}"${until}`,
      );
    }
  }
  if (s.devices.every((d) => d.agents.length === 0)) {
    lines.push('', `No account is paired yet: add one in the dashboard, or with ${CLI} agents add PROVIDER.`);
  }
  return `${lines.join('\n')}\n`;
}
