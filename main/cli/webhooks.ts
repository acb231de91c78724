import { systemClock } from '../core/clock.js';
import { resolveDataDir } from '../core/data-dir.js';
import { randomIds } from '../core/ids.js';
import { readServerInfo } from '../core/runtime-files.js';
import { openDatabase } from '../queue/db.js';
import { TableChanges } from '../queue/postgres/table-changes.js';
import { SqliteJobStore } from '../queue/sqlite/job-store.js';
import { NoDelivery, WebhookDeliveries, type DeliveryLog } from '../webhooks/deliveries.js';
import { isDelivered, WebhookOutbox } from '../webhooks/outbox.js';
import { ATTEMPTS_PER_ROUND } from '../webhooks/schedule.js';
import { PgSigningSecret } from '../webhooks/postgres/signing-secret.js';
import { SqliteSigningSecret, type SigningSecret } from '../webhooks/signing-secret.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION, databaseUrl, withSharedDatabase } from './database.js';

const DATA_DIR = { 'data-dir': { type: 'string' } } as const;
const USE = 'Use: chatbridge webhooks log JOB_ID | webhooks redeliver JOB_ID | webhooks secret [--rotate]';

const out = (line: string) => process.stdout.write(`${line}\n`);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `chatbridge webhooks …`: the signing secret, a job's delivery log, redelivery. Changes go
 * to the database; a running server sends a redelivery within a second.
 */
export async function webhooks(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'secret': {
      const { values } = parse(rest, { ...DATA_DIR, ...DATABASE_OPTION, rotate: { type: 'boolean' } });
      const secret = await withSigningSecret(values, (secrets) => (values.rotate ? secrets.rotate() : Promise.resolve(secrets.get())));
      // The secret alone on stdout, so a script can capture it.
      out(secret);
      if (values.rotate) process.stderr.write('Rotated: deliveries from now on, retries included, are signed with this secret only.\n');
      return;
    }
    case 'log':
    case 'redeliver': {
      const { values, positionals } = parse(rest, DATA_DIR, 1);
      const jobId = positionals[0];
      if (!jobId) throw new UsageError(`Which job? chatbridge webhooks ${sub} JOB_ID`);
      const dataDir = resolveDataDir(values['data-dir']);
      // Neither looking up a job nor redelivering one can start from an empty data dir.
      const db = openDatabase(dataDir, { create: false });
      try {
        const outbox = new WebhookOutbox(db);
        const deliveries = new WebhookDeliveries(new SqliteJobStore(db, outbox), outbox, systemClock);
        if (sub === 'log') return printLog(await deliveries.log(jobId));
        const log = await deliveries.redeliver(jobId);
        out(
          readServerInfo(dataDir)
            ? `Redelivery of ${jobId} to ${log.url} asked for: the running server sends it within a second.`
            : `Redelivery of ${jobId} to ${log.url} asked for: it is sent when ChatBridge next starts.`,
        );
      } catch (error) {
        if (error instanceof NoDelivery) throw new UsageError(error.message);
        throw error;
      } finally {
        db.close();
      }
      return;
    }
    default:
      throw new UsageError(USE);
  }
}

/** Runs `work` on the signing secret of the shared database (--database) or of the data dir. */
async function withSigningSecret<T>(
  values: { database?: string | undefined; 'data-dir'?: string | undefined },
  work: (secrets: SigningSecret) => Promise<T>,
): Promise<T> {
  const url = databaseUrl(values);
  if (url) {
    return withSharedDatabase(url, async (pool) => {
      // A command never listens: only load() and rotate() read, and both report their own errors.
      const secrets = new PgSigningSecret(pool, new TableChanges(pool), randomIds, systemClock, (error) => {
        throw error;
      });
      await secrets.load();
      return work(secrets);
    });
  }
  const db = openDatabase(resolveDataDir(values['data-dir']));
  try {
    return await work(new SqliteSigningSecret(db, randomIds, systemClock));
  } finally {
    db.close();
  }
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
