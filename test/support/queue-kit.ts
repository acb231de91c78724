import { randomIds, type IdGenerator } from '../../main/core/ids.js';
import type { JobRow, NewJob } from '../../main/core/jobs.js';
import type { Provider, VariantCatalog } from '../../main/core/providers.js';
import { personalProfile } from '../../main/contract/profile.js';
import { AgentPool } from '../../main/queue/agent-pool.js';
import { HourlyUsage } from '../../main/queue/hourly-usage.js';
import { RotationPicker } from '../../main/queue/rotation.js';
import { Scheduler } from '../../main/queue/scheduler.js';
import { VariantOffers } from '../../main/queue/variant-offers.js';
import { Completions } from '../../main/service/completions.js';
import { serveStorageInMemory } from '../../main/storage/storage.js';
import { ManualClock } from './manual-clock.js';
import { newJob } from './new-job.js';
import { ScriptedAgent } from './scripted-agent.js';
import { submit } from './store.js';

/** Ids as the service makes them, but the pause between jobs gets no random part: tests time it exactly. */
const steadyIds: IdGenerator = { ...randomIds, pick: () => 0 };

export type QueueKit = Awaited<ReturnType<typeof queueKit>>;

/**
 * The queue as Service assembles it (store, agent pool, hourly usage, scheduler, Completions)
 * on the real SQLite store in memory, with scripted agents and a manual clock: no disk, no
 * HTTP, no sleeping. `settled()` is the scheduler's: await it after each step. `kept`: the
 * storage and clock of a kit run before (restart).
 */
export async function queueKit(
  agents: Partial<Record<Provider, number>>,
  variants: VariantCatalog = () => [],
  kept?: { storage: Awaited<ReturnType<typeof serveStorageInMemory>>; clock: ManualClock },
) {
  const clock = kept?.clock ?? new ManualClock();
  const storage = kept?.storage ?? (await serveStorageInMemory({ clock, ids: steadyIds }));
  const store = storage.jobs;
  const pool = new AgentPool(storage.agents, clock, steadyIds);
  const usage = new HourlyUsage(clock);
  await usage.follow(store);
  const roundErrors: Error[] = [];
  const scheduler = new Scheduler(
    store,
    pool,
    usage,
    new RotationPicker(usage, steadyIds),
    () => storage.settings.get(),
    clock,
    steadyIds,
    (error) => roundErrors.push(error),
    new VariantOffers(),
    variants,
  );
  const cluster = storage.devices(pool, { name: 'test', baseUrl: () => null }, (error) => roundErrors.push(error));
  const completions = new Completions(store, scheduler, cluster, storage.settings, personalProfile, clock, steadyIds, variants);
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
  return {
    clock,
    storage,
    store,
    pool,
    scheduler,
    completions,
    events: store.events,
    agents: scripted,
    /** Dispatch rounds that failed: a test expects none. */
    roundErrors,
    /** A queued job created now on the clock, as a submission makes it. */
    submit: (job: Partial<NewJob> = {}): Promise<JobRow> => submit(store, newJob({ created_at: clock.now(), ...job })),
    /** The job as stored now. */
    job: async (id: string): Promise<JobRow> => (await store.get(id))!,
    settled: () => scheduler.settled(),

    async close(): Promise<void> {
      completions.close();
      await scheduler.stop();
      pool.stop();
      await storage.close();
    },
  };
}

/**
 * The service run again on `kit`'s storage and clock, once the test has stopped its
 * scheduler: the agents `agents` names (new scripted ones for the same rows), a new pool and scheduler.
 */
export async function restartKit(kit: QueueKit, agents: Partial<Record<Provider, number>>, variants?: VariantCatalog): Promise<QueueKit> {
  kit.completions.close();
  kit.pool.stop();
  return queueKit(agents, variants, { storage: kit.storage, clock: kit.clock });
}
