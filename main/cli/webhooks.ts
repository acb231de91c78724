import type pg from 'pg';
import { systemClock } from '../core/clock.js';
import { resolveDataDir } from '../core/data-dir.js';
import { randomIds } from '../core/ids.js';
import { readServerInfo } from '../core/runtime-files.js';
import { openDatabase } from '../storage/sqlite/db.js';
import { listDevices } from '../storage/postgres/devices.js';
import { PgJobStore } from '../storage/postgres/job-store.js';
import { TableChanges } from '../storage/postgres/table-changes.js';
import { SqliteJobStore } from '../storage/sqlite/job-store.js';
import { NoDelivery, WebhookDeliveries, type DeliveryLog } from '../webhooks/deliveries.js';
import { isDelivered } from '../webhooks/outbox.js';
import { PgWebhookOutbox } from '../storage/postgres/outbox.js';
import { ATTEMPTS_PER_ROUND } from '../webhooks/schedule.js';
import { PgSigningSecret } from '../storage/postgres/signing-secret.js';
import { type SigningSecret } from '../webhooks/signing-secret.js';
import { profileNamed } from '../api/profile.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION, databaseUrl, withSharedDatabase } from './database.js';
import { SqliteWebhookOutbox } from '../storage/sqlite/outbox.js';
import { SqliteSigningSecret } from '../storage/sqlite/signing-secret.js';
import { storedDatabaseProfile } from '../storage/postgres/profile.js';
import { storedProfile } from '../storage/sqlite/profile.js';

const DATA_DIR = { 'data-dir': { type: 'string' } } as const;
const USE = 'Use: chatbridge webhooks log JOB_ID | webhooks redeliver JOB_ID | webhooks secret [--rotate]';
/** Who the command line is among the instances: it claims nothing and sends nothing. */
const CLI_DEVICE = 'cli';

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
      if (!jobId) throw new UsageError(`Which job? chatbridge webhooks ${sub} JOB_ID`);
      const url = databaseUrl(values);
      try {
        if (url) return await withSharedDatabase(url, (pool) => logOrRedeliver(sub, jobId, shared(pool), () => anyoneOnline(pool)));
        const dataDir = resolveDataDir(values['data-dir']);
        // Neither looking up a job nor redelivering one can start from an empty data dir.
        const db = openDatabase(dataDir, { create: false });
        try {
          const outbox = new SqliteWebhookOutbox(db);
          const deliveries = new WebhookDeliveries(new SqliteJobStore(db, outbox), outbox, systemClock);
          await logOrRedeliver(sub, jobId, deliveries, async () => readServerInfo(dataDir) !== null);
        } finally {
          db.close();
        }
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
async function withSigningSecret<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (secrets: SigningSecret, hosted: boolean) => Promise<T>,
): Promise<T> {
  const url = databaseUrl(values);
  if (url) {
    return withSharedDatabase(url, async (pool) => {
      // A command never listens: only load() and rotate() read, and both report their own errors.
      const secrets = new PgSigningSecret(pool, new TableChanges(pool), randomIds, systemClock, (error) => {
        throw error;
      });
      await secrets.load();
      return work(secrets, profileNamed(await storedDatabaseProfile(pool)).accounts);
    });
  }
  const db = openDatabase(resolveDataDir(values['data-dir']));
  try {
    return await work(new SqliteSigningSecret(db, randomIds, systemClock), profileNamed(storedProfile(db)).accounts);
  } finally {
    db.close();
  }
}

/** The jobs and outbox of the shared database, read and changed on `pool` (which the caller ends). */
function shared(pool: pg.Pool): WebhookDeliveries {
  // Nothing here listens: the outbox announces a redelivery, it has no sender to wake.
  const outbox = new PgWebhookOutbox(pool, CLI_DEVICE, new TableChanges(pool));
  return new WebhookDeliveries(new PgJobStore(pool, CLI_DEVICE), outbox, systemClock);
}

/** An instance is sending webhooks: it has beaten within its lease and has not left. */
async function anyoneOnline(pool: pg.Pool): Promise<boolean> {
  return (await listDevices(pool, Date.now())).some((d) => d.online);
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
        : `failed: none of ${ATTEMPTS_PER_ROUND} attempts got a 2xx (chatbridge webhooks redeliver ${log.jobId})`;
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
