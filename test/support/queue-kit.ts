import { randomIds, type IdGenerator } from '../../main/core/ids.js';
import type { JobRow, NewJob } from '../../main/core/jobs.js';
import type { Provider, VariantCatalog } from '../../main/core/providers.js';
import type { AttachmentCatalog, NewAttachment } from '../../main/core/attachments.js';
import { assemble } from '../../main/service/assembly.js';
import { serveStorageInMemory } from '../../main/storage/storage.js';
import { ManualClock } from './manual-clock.js';
import { newJob } from './new-job.js';
import { ScriptedAgent } from './scripted-agent.js';
import { submit } from './store.js';

/** Ids as the service makes them, but the pause between jobs gets no random part: tests time it exactly. */
const steadyIds: IdGenerator = { ...randomIds, pick: () => 0 };

export type QueueKit = Awaited<ReturnType<typeof queueKit>>;

/**
 * The queue as Service has it (main/service/assembly.ts builds both) on the real SQLite
 * store in memory, with scripted agents and a manual clock: no disk, no HTTP, no sleeping,
 * and only the scheduler started (no webhooks, no retention sweeps). `settled()` is the
 * scheduler's: await it after each step. `kept`: the storage and clock of a kit run before (restart).
 * `attachmentRules`: what each provider's site takes as files (none given: any file).
 */
export async function queueKit(
  agents: Partial<Record<Provider, number>>,
  variants: VariantCatalog = () => [],
  kept?: { storage: Awaited<ReturnType<typeof serveStorageInMemory>>; clock: ManualClock },
  attachmentRules?: AttachmentCatalog,
) {
  const clock = kept?.clock ?? new ManualClock();
  const storage = kept?.storage ?? (await serveStorageInMemory({ clock, ids: steadyIds }));
  const parts = await assemble({ dataDir: ':memory:', storage, clock, ids: steadyIds, variants, ...(attachmentRules ? { attachmentRules } : {}) });
  const { store, pool, scheduler, completions } = parts;
  // The service's own warnings (a failed dispatch round, above all; job and agent news is no error): a test expects none.
  const roundErrors: string[] = [];
  const stopHearing = parts.log.subscribe((entry) => {
    if (entry.source === 'service' && entry.level !== 'info') roundErrors.push(entry.message);
  });
  await parts.usage.follow(store);
  const scripted: ScriptedAgent[] = [];
  for (const [provider, count] of Object.entries(agents) as [Provider, number][]) {
    for (let i = 1; i <= count; i++) {
      const name = `${provider}-${i}`;
      const agent = new ScriptedAgent((pool.list().find((a) => a.name === name) ?? pool.create(provider, name)).id, provider);
      pool.attach(agent);
      scripted.push(agent);
    }
  }
  await scheduler.start();
  /** Everything but the storage, which a restart keeps. */
  const release = () => {
    completions.close();
    parts.setAsideJobs.stop();
    pool.stop();
    parts.stopListening();
    parts.metrics.stop();
    stopHearing();
  };
  return {
    clock,
    storage,
    store,
    pool,
    scheduler,
    completions,
    events: store.events,
    agents: scripted,
    /** The service's own warnings: a test expects none. */
    roundErrors,
    /** A queued job created now on the clock, as a submission makes it, with its files if any. */
    submit: (job: Partial<NewJob> = {}, attachments: readonly NewAttachment[] = []): Promise<JobRow> =>
      submit(store, newJob({ created_at: clock.now(), ...job }), attachments),
    /** The job as stored now. */
    job: async (id: string): Promise<JobRow> => (await store.get(id))!,
    settled: () => scheduler.settled(),
    release,

    async close(): Promise<void> {
      await scheduler.stop();
      release();
      await storage.close();
    },
  };
}

/**
 * The service run again on `kit`'s storage and clock, once the test has stopped its
 * scheduler: the agents `agents` names (new scripted ones for the same rows), a new assembly.
 */
export async function restartKit(kit: QueueKit, agents: Partial<Record<Provider, number>>, variants?: VariantCatalog): Promise<QueueKit> {
  kit.release();
  return queueKit(agents, variants, { storage: kit.storage, clock: kit.clock });
}
