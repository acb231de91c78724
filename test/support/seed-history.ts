import { randomIds } from '../../main/core/ids.js';
import type { JobStore } from '../../main/queue/job-store.js';
import type { Db } from '../../main/storage/sqlite/db.js';

export interface SeedOptions {
  count: number;
  /** Jobs are created in [from, to), and finish before `to`. */
  from: number;
  to: number;
  agents: { id: string; provider: string }[];
  /** API key ids the jobs are spread over. */
  keys: string[];
  /** The same seed gives the same jobs. */
  seed?: number;
  promptBytes?: number;
}

/** A small deterministic PRNG (mulberry32): the same history on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Writes `count` finished jobs through the store, as the scheduler would have: most
 * succeed, some fail (PROVIDER_ERROR, PROMPT_REJECTED), some are cancelled or expire in the
 * queue. Busier in the afternoon, with waits and run times spread like a real day's. Each
 * move is its own transaction, as in service; a SQLite store's `db` goes without fsync
 * meanwhile (a fixture need not survive a power cut), so thousands of jobs take seconds.
 */
export async function seedFinishedJobs(store: JobStore, db: Db | undefined, o: SeedOptions): Promise<string[]> {
  const rand = random(o.seed ?? 1);
  const prompt = 'p'.repeat(o.promptBytes ?? 40);
  const ids: string[] = [];
  const span = o.to - o.from - 600_000;
  const createdAt = () => {
    // Rejection sampling: more jobs in the hours around 15:00 UTC.
    for (;;) {
      const t = o.from + Math.floor(rand() * span);
      const hour = new Date(t).getUTCHours();
      if (rand() < 0.25 + 0.75 * Math.exp(-(((hour - 15) / 4) ** 2))) return t;
    }
  };
  const synchronous = db?.pragma('synchronous', { simple: true }) as number;
  db?.pragma('synchronous = OFF');
  try {
    for (let i = 0; i < o.count; i++) {
      const created = createdAt();
      const agent = o.agents[Math.floor(rand() * o.agents.length)]!;
      const id = randomIds.job(created);
      ids.push(id);
      const job = {
        id,
        prompt,
        req_provider: null,
        req_agent_id: null,
        conversation_in: null,
        priority: 0,
        timeout_ms: 180_000,
        deadline_at: created + 300_000,
        max_attempts: 1,
        callback_url: null,
        metadata: '{}',
        created_at: created,
        api_key_id: o.keys[Math.floor(rand() * o.keys.length)]!,
      };
      await store.submit({ job, queuedLimit: Number.MAX_SAFE_INTEGER });
      const fate = rand();
      if (fate < 0.02) {
        await store.cancel(id, created + 1_000 + Math.floor(rand() * 5_000));
        continue;
      }
      if (fate < 0.04) {
        await store.expireDue(created + 300_000);
        continue;
      }
      const started = created + 150 + Math.floor(rand() ** 3 * 20_000);
      await store.dispatch([{ jobId: id, agentId: agent.id, provider: agent.provider }], started);
      const ended = started + 3_000 + Math.floor(rand() ** 2 * 60_000);
      if (fate < 0.08) await store.endAttempt(id, 1, { outcome: 'failed', errorCode: 'PROVIDER_ERROR' }, ended);
      else if (fate < 0.1) await store.endAttempt(id, 1, { outcome: 'failed', errorCode: 'PROMPT_REJECTED' }, ended);
      else await store.endAttempt(id, 1, { outcome: 'succeeded', response: 'answer', conversationRef: `cv_${id}`, conversationAddress: 'https://chat/c' }, ended);
    }
  } finally {
    db?.pragma(`synchronous = ${synchronous}`);
  }
  return ids;
}
