import { systemClock } from '../core/clock.js';
import { NoDelivery, WebhookDeliveries, type DeliveryLog } from '../webhooks/deliveries.js';
import { isDelivered } from '../webhooks/outbox.js';
import { ATTEMPTS_PER_ROUND } from '../webhooks/schedule.js';
import type { SigningSecret } from '../webhooks/signing-secret.js';
import { hasAccounts } from '../core/profile-name.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION, withCommandStorage } from './database.js';
import { CLI } from '../core/cli-name.js';

const DATA_DIR = { 'data-dir': { type: 'string' } } as const;
const USE = `Use: ${CLI} webhooks log JOB_ID | webhooks redeliver JOB_ID | webhooks secret [--rotate]`;

const out = (line: string) => process.stdout.write(`${line}\n`);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `chatbridge webhooks …`: the signing secret, a job's delivery log, redelivery. Changes go
 * to the database; a running server sends a redelivery within a second. With --database,
 * the log and redelivery are those of the shared PostgreSQL, where any instance sends it.
 */
export async function webhooks(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'secret': {
      const { values } = parse(rest, { ...DATA_DIR, ...DATABASE_OPTION, rotate: { type: 'boolean' } });
      const { secret, hosted } = await withSigningSecret(values, async (secrets, hosted) => ({
        secret: values.rotate ? await secrets.rotate() : secrets.get(),
        hosted,
      }));
      // The secret alone on stdout, so a script can capture it.
      out(secret);
      if (hosted) process.stderr.write(HOSTED_NOTE);
      if (values.rotate) process.stderr.write('Rotated: deliveries from now on, retries included, are signed with this secret only.\n');
      return;
    }
    case 'log':
    case 'redeliver': {
      const { values, positionals } = parse(rest, { ...DATA_DIR, ...DATABASE_OPTION }, 1);
      const jobId = positionals[0];
      if (!jobId) throw new UsageError(`Which job? ${CLI} webhooks ${sub} JOB_ID`);
      try {
        await withCommandStorage(
          values,
          (storage) => logOrRedeliver(sub, jobId, new WebhookDeliveries(storage.jobs, storage.outbox, systemClock), () => storage.someoneServes()),
          // Neither looking up a job nor redelivering one can start from an empty data dir.
          { readOnly: true },
        );
      } catch (error) {
        if (error instanceof NoDelivery) throw new UsageError(error.message);
        throw error;
      }
      return;
    }
    default:
      throw new UsageError(USE);
  }
}

/** (H) What the operator's secret signs, and where each account finds its own (which no command shows). */
const HOSTED_NOTE =
  "This is the service's secret: it signs the deliveries of jobs of no account. Each account's jobs are signed with that account's own secret, which its keys read at GET /v1/webhooks/secret.\n";

/**
 * Runs `work` on the signing secret of the shared database (--database) or of the data dir,
 * told whether that is a hosted install's.
 */
function withSigningSecret<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (secrets: SigningSecret, hosted: boolean) => Promise<T>,
): Promise<T> {
  return withCommandStorage(values, async (storage) => work(storage.signingSecret, hasAccounts(await storage.storedProfile())));
}

async function logOrRedeliver(sub: 'log' | 'redeliver', jobId: string, deliveries: WebhookDeliveries, senderRunning: () => Promise<boolean>): Promise<void> {
  if (sub === 'log') return printLog(await deliveries.log(jobId));
  const log = await deliveries.redeliver(jobId);
  out(
    (await senderRunning())
      ? `Redelivery of ${jobId} to ${log.url} asked for: the running server sends it within a second.`
      : `Redelivery of ${jobId} to ${log.url} asked for: it is sent when ChatBridge next starts.`,
  );
}

function printLog(log: DeliveryLog): void {
  const state =
    log.state === 'pending'
      ? log.nextAttemptAt! <= Date.now()
        ? 'pending, due now'
        : `pending, next attempt at ${iso(log.nextAttemptAt!)}`
      : log.state === 'delivered'
        ? 'delivered'
        : `failed: none of ${ATTEMPTS_PER_ROUND} attempts got a 2xx (${CLI} webhooks redeliver ${log.jobId})`;
  out(`${log.jobId} → ${log.url}: ${state}`);
  if (log.attempts.length === 0) return;
  out(`${'attempt'.padEnd(9)}${'sent at'.padEnd(22)}${'duration'.padStart(9)}  result`);
  let round = 1;
  for (const a of log.attempts) {
    if (a.round !== round) out(`-- redelivery ${(round = a.round) - 1}`);
    const result = a.status_code === null ? a.error! : `HTTP ${a.status_code}${isDelivered(a.status_code) ? '' : ' (not a 2xx)'}`;
    out(`${String(a.attempt).padEnd(9)}${iso(a.started_at).padEnd(22)}${`${a.duration_ms} ms`.padStart(9)}  ${result}`);
  }
}
