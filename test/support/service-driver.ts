/**
 * How tests of the service drive it and look at it: the verbs they need, built on the
 * service's ports (the job store, the outbox, settings, the agent pool) rather than on the
 * Service's fields or its database. A test that needs a fact no verb gives adds a verb here,
 * on a port's method; none runs SQL. One driver per running service (TestService.driver).
 */
import { EVERY_ACCOUNT, type AttemptRow, type JobRow } from '../../main/core/jobs.js';
import type { Provider } from '../../main/core/providers.js';
import { isFinal } from '../../main/queue/state-machine.js';
import type { Service } from '../../main/service/service.js';
import { withStorage } from '../../main/storage/storage.js';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import type { ManualClock } from './manual-clock.js';
import type { ScriptedAgent } from './scripted-agent.js';

export type ServiceDriver = ReturnType<typeof serviceDriver>;

export function serviceDriver(service: Service, attach: (counts: Partial<Record<Provider, number>>) => ScriptedAgent[], clock?: ManualClock) {
  const { store, outbox, settings, pool, keys, events, scheduler } = service;
  return {
    /** The job as stored now; undefined once deleted or pruned. */
    job: (id: string) => store.get(id),
    /** The job's attempts, oldest first. */
    attempts: (id: string) => store.attempts(id),
    /** The newest jobs first. */
    recent: (limit = 100) => store.recent(limit),
    /** How many jobs wait in the queue, of every account. */
    queuedCount: () => store.queuedCount(EVERY_ACCOUNT),
    /** A conversation's row (its address on the provider's site) by its `conversation_ref`. */
    conversation: (ref: string) => store.conversation(ref),
    /** The job's webhook delivery (its state and schedule), if it has one. */
    delivery: (id: string) => outbox.get(id),
    /** Each try of the job's webhook delivery, oldest first. */
    deliveryAttempts: (id: string) => outbox.attempts(id),
    /** Resolves with the job once it is final (succeeded, failed, cancelled, expired); fails after `ms` of real time. */
    async ended(id: string, ms = 5_000): Promise<JobRow> {
      return new Promise<JobRow>((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`Timed out waiting for job ${id} to end`)), ms);
        const stop = store.onEvent(({ job }) => {
          if (job.id === id && isFinal(job.status)) done(null, job);
        });
        const done = (error: Error | null, job?: JobRow) => {
          clearTimeout(timer);
          stop();
          if (error) reject(error);
          else resolve(job!);
        };
        // It may have ended before the test asked.
        void store.get(id).then((job) => job && isFinal(job.status) && done(null, job), (error: Error) => done(error));
      });
    },
    /** How many listeners wait on jobs (a hold or a long poll: one each; an event stream: two). */
    waiting: () => events.size(),
    /** Resolves once the dispatch rounds asked for so far have run: await it after a step instead of sleeping. */
    settled: () => scheduler.settled(),
    /** Whether the agent is running a job now. */
    isRunningOn: (agentId: string) => scheduler.isRunningOn(agentId),
    /** The settings as the dashboard and the command line change them (pause, caps, rotation, variants, retention). */
    settings,
    /** The API keys, as the command line and the dashboard make, list and revoke them. */
    keys,
    /** This device's agents: their rows, states, caps, cooldowns and whether they are enabled. */
    agents: pool,
    /** Attaches scripted agents, reusing the rows named `<provider>-<n>` (a restarted service gets its agents back). */
    attach,
    /** Moves the service's clock on (a service started with a ManualClock). */
    advance(ms: number): void {
      if (!clock) throw new Error('This service runs on the system clock: start it with a ManualClock to move time');
      clock.advance(ms);
    },
  };
}

/**
 * A stopped service's job and attempts as its next start would find them: the data dir
 * opened through the storage's one door, as a command opens it.
 */
export async function storedJob(dataDir: string, id: string) {
  return withStorage({ dataDir, clock: systemClock, ids: randomIds, readOnly: true }, async (storage) => ({
    job: await storage.jobs.get(id),
    attempts: await storage.jobs.attempts(id),
  }));
}

/**
 * Every job a stopped or killed service left in its data dir, newest first, each with its
 * attempts (oldest first): read through the storage's door, as a command reads it.
 */
export async function storedJobs(dataDir: string): Promise<{ job: JobRow; attempts: AttemptRow[] }[]> {
  return withStorage({ dataDir, clock: systemClock, ids: randomIds, readOnly: true }, async ({ jobs }) =>
    Promise.all((await jobs.recent(Number.MAX_SAFE_INTEGER)).map(async (job) => ({ job, attempts: await jobs.attempts(job.id) }))),
  );
}
