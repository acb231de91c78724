/**
 * Following a job on an instance that does not run it: the pieces its agent publishes on
 * another instance reach this one's stream through the store (PostgreSQL notices, rows read
 * back), and so does the end. Also measures the time from a publish to the other stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../main/storage/postgres/connect.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import type { JobRow } from '../../main/core/jobs.js';
import type { FollowEvent } from '../../main/contract/job-stream.js';
import { followJob } from '../../main/service/job-follow.js';
import { newJob, T0 } from '../support/new-job.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

describe('PostgreSQL: a job followed on the instance that does not run it', () => {
  it("streams the other instance's pieces as they are stored, then the rest of the answer and the end", async () => {
    const url = await postgres.newDatabase();
    const a = new PgJobStore(await connect(url), 'dev_a');
    const b = new PgJobStore(await connect(url), 'dev_b');
    try {
      await Promise.all([a.listen(), b.listen()]);
      const job = ((await a.submit({ job: newJob(), queuedLimit: 1000 })) as { job: JobRow }).job;
      await a.dispatch([{ jobId: job.id, agentId: 'agt_a', provider: 'chatgpt' }], T0 + 1);
      const got: { event: FollowEvent; at: number }[] = [];
      let ended!: () => void;
      const done = new Promise<void>((resolve) => (ended = resolve));
      const nextDelta = () => {
        const seen = got.filter((g) => g.event.kind === 'delta').length;
        return new Promise<number>((resolve) => {
          const check = setInterval(() => {
            const deltas = got.filter((g) => g.event.kind === 'delta');
            if (deltas.length > seen) {
              clearInterval(check);
              resolve(deltas.at(-1)!.at);
            }
          }, 1);
        });
      };
      followJob(b, (await b.view(job.id))!, null, {
        send: async (event) => void got.push({ event, at: performance.now() }),
        end: () => ended(),
      });
      const latencies: number[] = [];
      const answer = 'The answer, in pieces: one, two, three, four, five.';
      const pieces = answer.slice(0, 40).match(/.{1,8}/g)!;
      for (const piece of pieces) {
        const arrived = nextDelta();
        const sent = performance.now();
        await a.appendDelta(job.id, 1, piece);
        latencies.push((await arrived) - sent);
      }
      await a.endAttempt(job.id, 1, { outcome: 'succeeded', response: answer, conversationRef: 'cv_1', conversationAddress: 'https://chat.example/c/1' }, T0 + 2);
      await done;
      const deltas = got.flatMap((g) => (g.event.kind === 'delta' ? [g.event.text] : []));
      expect(deltas.join('')).toBe(answer);
      expect(deltas.slice(0, -1)).toEqual(pieces);
      expect(got.flatMap((g) => (g.event.kind === 'job' ? [g.event.job.status] : []))).toEqual(['dispatched', 'succeeded']);
      latencies.sort((x, y) => x - y);
      console.log(`publish on A to B's stream: median ${latencies[latencies.length >> 1]!.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms over ${latencies.length}`);
      expect(b.events.size()).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
