import type { AgentState } from '../core/agent.js';
import type { AgentPool } from '../queue/agent-pool.js';
import type { Clock } from '../core/clock.js';
import { maskProxy } from '../core/proxy.js';
import type { JobStore } from '../queue/job-store.js';
import type { JobRow } from '../core/jobs.js';
import type { WaitReason } from '../core/wait-reason.js';
import type { WebhookAttempt } from '../webhooks/sender.js';
import type { DeliveryRow } from '../webhooks/outbox.js';
import type { LogBook } from './log-book.js';

/** An agent's reason can be a page's text; one line of it is enough. */
const MAX_DETAIL = 200;

/**
 * Logs each agent's state changes, as "Claude 1: idle → needs_login (why)". Only
 * transitions are logged, so the pool's frequent change notices (caps, renames, cooldowns)
 * cost nothing. `busy` counts as `idle`: going to work and back is every job's normal life
 * and would bury the lines that matter (the Jobs page shows the work). An agent is first
 * logged when its live agent is attached ("started"); before that the pool reports `error`
 * for it only because nothing drives it yet. A browser agent also reports `error` while its
 * browser first opens: that is "starting", not a problem, and logs nothing by itself. Nor
 * is an agent that has not been logged in yet in this run a warning (an account being
 * paired, or the simulator signing its agents in): losing a login it had is.
 */
export function logAgentChanges(pool: AgentPool, log: LogBook): () => void {
  const last = new Map<string, AgentState | 'starting'>();
  /** Live agents whose notes (a dialog closed, a fallback taken) go to the log. */
  const heard = new WeakSet<object>();
  const loggedInOnce = new Set<string>();
  /** Each agent's proxy as last seen: a change (dashboard or command line) is news, its password never. */
  const proxies = new Map<string, string | null>();
  const look = () => {
    const present = new Set<string>();
    for (const record of pool.list()) {
      present.add(record.id);
      if (proxies.has(record.id) && proxies.get(record.id) !== record.proxy) {
        const egress = record.proxy === null ? 'connects directly' : `goes through ${maskProxy(record.proxy)}`;
        log.info('agent', `${record.name}: now ${egress}`);
      }
      proxies.set(record.id, record.proxy);
      const live = pool.liveAgent(record.id);
      if (!live) continue;
      if (!heard.has(live)) {
        heard.add(live);
        const id = record.id;
        live.onNote?.((note) => log.add(note.level, 'agent', `${pool.get(id)?.name ?? id}: ${note.message}`));
      }
      const raw = pool.state(record.id);
      const state: AgentState = raw === 'busy' ? 'idle' : raw;
      const before = last.get(record.id);
      if (before === state) continue;
      if ((before === undefined || before === 'starting') && state === 'error') {
        last.set(record.id, 'starting');
        continue;
      }
      last.set(record.id, state);
      if (state === 'idle' || state === 'resting') loggedInOnce.add(record.id);
      const trouble = state === 'error' || (state === 'needs_login' && loggedInOnce.has(record.id));
      const detail = state === 'needs_login' || state === 'error' ? live.detail?.()?.trim().slice(0, MAX_DETAIL) : undefined;
      const change = before === undefined || before === 'starting' ? `started, ${state}` : `${before} → ${state}`;
      log.add(trouble ? 'warn' : 'info', 'agent', `${record.name}: ${change}${detail ? ` (${detail})` : ''}`);
    }
    // A removed agent is forgotten, so an agent added later under the same id starts afresh.
    for (const id of [...last.keys()]) {
      if (!present.has(id)) {
        last.delete(id);
        loggedInOnce.delete(id);
        proxies.delete(id);
      }
    }
  };
  look();
  return pool.onChange(look);
}

/**
 * The moves this instance makes, as `jobs` commits them: what is logged. Another instance's
 * move, heard through a notice any role that can connect may send again, is that instance's
 * to log.
 */
function ownMoves(jobs: Pick<JobStore, 'onEvent'>, listener: (job: JobRow) => void): () => void {
  return jobs.onEvent(({ job, heard }) => {
    if (!heard) listener(job);
  });
}

/** Logs jobs that end without an answer: failed or expired, with their error code. */
export function logJobEnds(jobs: Pick<JobStore, 'onEvent'>, log: LogBook): () => void {
  return ownMoves(jobs, (job) => {
    if (job.status !== 'failed' && job.status !== 'expired') return;
    const code = job.error_code ? `: ${job.error_code}` : '';
    const message = job.error_message ? ` (${job.error_message})` : '';
    log.warn('job', `Job ${job.id} ${job.status} after ${job.attempts} ${job.attempts === 1 ? 'try' : 'tries'}${code}${message}`);
  });
}

/** The same reason for a burst of new jobs is one line a minute, not one per job. */
const SAME_WAIT_QUIET_MS = 60_000;

/**
 * Logs a job accepted into a wait only a person can end ("no ChatGPT account is paired"):
 * the contract keeps such a job queued, so the log says why nothing happens. Waits that
 * end by themselves (agents busy, resting, caps) are everyday queueing and log nothing.
 */
export function logJobWaits(jobs: Pick<JobStore, 'onEvent'>, reason: (job: JobRow) => WaitReason | null, log: LogBook, clock: Clock): () => void {
  const lastLogged = new Map<string, number>();
  return ownMoves(jobs, (job) => {
    if (job.status !== 'queued' || job.attempts > 0) return;
    const why = reason(job);
    if (!why?.needsPerson) return;
    const now = clock.now();
    if (now - (lastLogged.get(why.text) ?? -Infinity) < SAME_WAIT_QUIET_MS) return;
    lastLogged.set(why.text, now);
    log.warn('job', `Job ${job.id} waits: ${why.text}`);
  });
}

/**
 * Logs webhook attempts that did not deliver, with what comes next (from the outbox, which
 * has just recorded the attempt). The receiver is named by its origin only: a callback URL's
 * path and query can carry the caller's own tokens. Lines keep the order of the attempts,
 * however long each look-up takes.
 */
export function logWebhookFailures(delivery: (jobId: string) => Promise<DeliveryRow | undefined>, log: LogBook): (attempt: WebhookAttempt) => void {
  let previous = Promise.resolve();
  return (attempt) => {
    if (attempt.delivered) return;
    const why = attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? 'no answer');
    // A look-up that fails (the database out of reach) is told as the common case: a retry.
    const row = delivery(attempt.jobId).catch(() => undefined);
    previous = previous.then(async () => {
      if ((await row)?.state === 'failed') {
        log.error('webhook', `Webhook for job ${attempt.jobId} to ${attempt.origin} failed (${why}); no more tries (redeliver from the job's page)`);
      } else {
        log.warn('webhook', `Webhook for job ${attempt.jobId} to ${attempt.origin} failed (${why}); it will be tried again`);
      }
    });
  };
}
