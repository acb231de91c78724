/**
 * The scheduler's dispatch rounds against a store that takes its time (as PostgreSQL does):
 * rounds never overlap, a wake during one runs one more after it, a claim whose job left
 * the queue meanwhile is skipped without costing the agent's hourly cap, and a shutdown
 * during a round puts the job it dispatched back in the queue, its attempt `SERVICE_STOPPED` (not spent).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Claim, JobRow } from '../../main/core/jobs.js';
import type { Service } from '../../main/service/service.js';
import { startTestService, tempDataDir, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { storedJob } from '../support/service-driver.js';
import { until } from '../support/until.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

/** Holds every dispatch transaction until `open()`, counting calls and how many were under way at once. */
function gateDispatch(service: Service) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const original = service.store.dispatch.bind(service.store);
  const seen = { calls: 0, active: 0, mostAtOnce: 0 };
  vi.spyOn(service.store, 'dispatch').mockImplementation(async (claims: readonly Claim[], now: number): Promise<JobRow[]> => {
    seen.calls++;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, ++seen.active);
    try {
      await opened;
      return await original(claims, now);
    } finally {
      seen.active--;
    }
  });
  return { seen, open };
}

describe('dispatch rounds on a slow store', () => {
  it('never overlap; a wake during one runs another; a claim on a job cancelled meanwhile costs no cap', async () => {
    t = await startTestService({ listen: false, agents: { chatgpt: 1 }, clock: new ManualClock() });
    const agent = t.agents[0]!;
    t.service.admin.agents.update(agent.id, { cap_per_hour: 1 });
    const gate = gateDispatch(t.service);

    const a = (await t.api('POST', '/v1/completions', { body: { prompt: 'a', ...queued } })).body.id as string;
    await until(() => gate.seen.calls === 1, 15_000, 'the first round to claim a');
    // While that round waits on its transaction: a is cancelled, b arrives and wakes the scheduler.
    expect((await t.api('DELETE', `/v1/completions/${a}`)).body.status).toBe('cancelled');
    const b = (await t.api('POST', '/v1/completions', { body: { prompt: 'b', ...queued } })).body.id as string;
    // b's wake was asked for before its answer was sent; give it the turn it would run in.
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(gate.seen.calls).toBe(1); // no second round while the first is under way
    gate.open();

    expect((await t!.driver.ended(b)).status).toBe('succeeded');
    expect(gate.seen).toEqual({ calls: 2, active: 0, mostAtOnce: 1 });
    expect(agent.runs.map((r) => r.prompt)).toEqual(['b']);
    expect(await t.driver.job(a)).toMatchObject({ status: 'cancelled', attempts: 0 });
    // Only b's dispatch counts against the cap of 1 an hour.
    expect((await t.service.admin.state.read()).agents[0]).toMatchObject({ cap_per_hour: 1, used_this_hour: 1 });
  });

  it('a shutdown during a round waits for it; the job it dispatched goes back to the queue, never started', async () => {
    const dataDir = tempDataDir();
    try {
      const local = await startTestService({ listen: false, agents: { chatgpt: 1 }, clock: new ManualClock(), dataDir });
      const gate = gateDispatch(local.service);
      const id = (await local.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued } })).body.id as string;
      await until(() => gate.seen.calls === 1, 15_000, 'the round to claim the job');
      const schedulerStop = vi.spyOn(local.service.scheduler, 'stop');
      const requeue = vi.spyOn(local.service.store, 'requeueDispatched');
      let stopped = false;
      const stopping = local.stop().then(() => (stopped = true));
      await until(() => schedulerStop.mock.calls.length === 1, 15_000, 'the scheduler asked to stop');
      // Waiting for the round: the job it claimed is not handed back to the queue yet.
      expect(requeue).not.toHaveBeenCalled();
      expect(stopped).toBe(false);
      gate.open();
      await stopping;
      expect(local.agents[0]!.runs).toEqual([]);

      const stored = await storedJob(dataDir, id);
      expect(stored.job).toMatchObject({ status: 'queued', attempts: 1 });
      expect(stored.attempts).toEqual([expect.objectContaining({ outcome: 'agent_lost', error_code: 'SERVICE_STOPPED' })]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
