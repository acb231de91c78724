/**
 * `chatbridge serve` with scripted agents instead of browsers, for tests that need the
 * service in its own process (SIGKILL, restarts) and for benchmarks:
 *   node dist/test/support/scripted-server.js --data-dir DIR [--port N] [--agents chatgpt=2,claude=1] [--ahead-ms N]
 *     [--database URL --device-name NAME [--no-api]] [--stop-grace MS] [--print-key] [--webhook-ca PEM_FILE]
 * Prints "listening on URL" like serve (with --no-api, "running"); with --database it is one
 * device of several sharing that PostgreSQL, as `serve --database` is; stops on a signal as
 * serve does (stop-signals.ts: a grace of --stop-grace ms, 0 by default, and the `stopped:` line). Agents added
 * through the admin API (`chatbridge agents add`) are scripted too (ScriptedControl).
 * `--ahead-ms` runs the service's clock that far ahead of the system's: a restart "later"
 * without waiting for it. `--print-key` makes a key of both scopes and prints it first
 * (`key cb_…`), for tests that need one to call the API but do not test how keys are made:
 * a `chatbridge keys create` process less each. `--webhook-ca` trusts a receiver's self-signed
 * certificate for webhook deliveries.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock, type Clock } from '../../main/core/clock.js';
import { isProvider, type Provider } from '../../main/core/providers.js';
import { stopOnSignals } from '../../main/cli/stop-signals.js';
import { Service } from '../../main/service/service.js';
import { buildServer } from '../../main/api/server.js';
import { httpsTransport } from '../../main/webhooks/https-transport.js';
import { attachScriptedAgents } from './scripted-agent.js';
import { ScriptedControl } from './scripted-control.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    agents: { type: 'string' },
    'ahead-ms': { type: 'string' },
    database: { type: 'string' },
    'device-name': { type: 'string' },
    'no-api': { type: 'boolean' },
    'stop-grace': { type: 'string' },
    'print-key': { type: 'boolean' },
    'webhook-ca': { type: 'string' },
  },
});
const counts: Partial<Record<Provider, number>> = {};
for (const part of (values.agents ?? '').split(',').filter(Boolean)) {
  const [provider, n] = part.split('=');
  if (!isProvider(provider)) throw new Error(`unknown provider ${provider}`);
  counts[provider] = Number(n ?? 1);
}
const ahead = Number(values['ahead-ms'] ?? 0);
const clock: Clock = { now: () => systemClock.now() + ahead, setTimer: systemClock.setTimer };
const service = await Service.start({
  dataDir: values['data-dir']!,
  http: buildServer,
  port: Number(values.port ?? 0),
  clock,
  api: values['no-api'] !== true,
  ...(values['webhook-ca'] ? { webhookTransport: httpsTransport({ ca: readFileSync(values['webhook-ca']) }) } : {}),
  ...(values.database ? { database: { url: values.database, deviceName: values['device-name'] ?? 'scripted' } } : {}),
});
attachScriptedAgents(service, counts);
service.attachAgents(new ScriptedControl(service));
stopOnSignals(service, Number(values['stop-grace'] ?? 0), []);
if (values['print-key']) {
  const key = await service.keys.create({ name: 'scripted', scopes: ['completions:read', 'completions:write'], expiresAt: null, accountId: null });
  process.stdout.write(`key ${key.secret}\n`);
}
process.stdout.write(service.baseUrl ? `listening on ${service.baseUrl}\n` : 'running\n');
