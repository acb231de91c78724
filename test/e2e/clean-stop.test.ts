/**
 * The clean stop of `chatbridge serve --simulate` (one simulated ChatGPT agent in real
 * Chromium), stopped as a terminal stops it: Ctrl-C reaches the whole process group, the
 * browsers' Playwright included. Three Ctrl-C during a 12 s answer: each stop prints its
 * `stopped:` line and exits 0; the answer still being written is collected from its
 * conversation after each restart (the simulated site keeps it, as a real site does), and
 * the job succeeds with one attempt, its prompt sent once. The key stays the same each run.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { CLI, ctrlC, listening, simulationReady, trackProcesses, type Running } from '../support/processes.js';
import { storedJob } from '../support/service-driver.js';
import { until } from '../support/until.js';

const procs = trackProcesses('chatbridge-clean-stop-');

/** One run of the simulation, up with its agent ready. */
async function simulation(dataDir: string): Promise<Running & { key: string; chatgpt: string }> {
  const args = [CLI, 'serve', '--simulate-agents', 'chatgpt=1', '--port', '0', '--data-dir', dataDir, '--stop-grace', '1s'];
  const server = await listening(procs.launch(args, process.env, { group: true }), 30_000);
  const key = await simulationReady(server, 60_000, 'the simulated agent');
  expect(server.out.stdout).toContain('simulated agents ready: 1 of 1\n');
  return { ...server, key, chatgpt: /chatgpt (http:\S+),/.exec(server.out.stdout)![1]! };
}

/**
 * The job's status once this run has taken it up again: `dispatched` while its answer is
 * collected, or `succeeded` when the answer was done by then (on a slow machine the
 * restarts can outlast the 12 s).
 */
function takenUp(server: Running & { key: string }, id: string): Promise<string> {
  return until(
    async () => {
      const res = await fetch(`${server.url}/v1/completions/${id}`, { headers: { authorization: `Bearer ${server.key}` } });
      const { status } = (await res.json()) as { status: string };
      return status === 'dispatched' || status === 'succeeded' ? status : null;
    },
    30_000,
    'the job taken up again',
  );
}

/** Ctrl-C: a clean stop, its `stopped:` line the last of its output. */
async function stop(server: Running): Promise<string> {
  ctrlC(server);
  expect(await server.closed, server.out.stderr).toEqual({ code: 0, signal: null });
  return /\nstopped: (.*)\n$/.exec(server.out.stdout)?.[1] ?? `no stopped: line in ${JSON.stringify(server.out.stdout)}`;
}

/** Whether the job's attempt has recorded where its answer can be found again (`serve --simulate` keeps its data in simulator/). */
async function sent(dataDir: string, jobId: string): Promise<boolean> {
  return (await storedJob(join(dataDir, 'simulator'), jobId)).attempts.some((a) => a.sent_conversation !== null);
}

describe('serve --simulate stopped with Ctrl-C', () => {
  it('stops cleanly three times during a 12 s answer, which is collected, not sent again: one attempt, one send', async () => {
    const dir = procs.tempDir();
    const prompt = 'A twelve-second answer, please [[sim:ms=12000]]';
    let server = await simulation(dir);
    const { key } = server;
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, provider: 'chatgpt', wait: false }),
    });
    const id = ((await res.json()) as { id: string }).id;
    await until(() => sent(dir, id), 30_000, 'the prompt sent');
    expect(await stop(server)).toBe('1 answer still being written is collected from its conversation after the restart');

    // Twice more while the answer is written: each run's collection is cut in turn.
    for (let run = 2; run <= 3; run++) {
      server = await simulation(dir);
      expect(server.key).toBe(key);
      await takenUp(server, id);
      // What the stop found running; nothing only when the answer was done before the Ctrl-C
      // (it can be done between the look above and the stop).
      const stopped = await stop(server);
      if (stopped === 'no job was running') expect((await storedJob(join(dir, 'simulator'), id)).job?.status).toBe('succeeded');
      else expect(stopped).toMatch(/^1 (answer still being written is collected from its conversation after the restart|running job ended within the grace)$/);
    }

    server = await simulation(dir);
    const job = (await (await fetch(`${server.url}/v1/completions/${id}?wait=true`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, response: simulatedAnswer('ChatGPT', 'chatgpt', prompt, 1) });
    // The simulated site kept its log across the runs: the prompt was sent once.
    const log = (await (await fetch(`${server.chatgpt}/__sim/log`)).json()) as { sends: { prompt: string }[] };
    expect(log.sends.filter((s) => s.prompt === prompt)).toHaveLength(1);
    expect(await stop(server)).toBe('no job was running');
  }, 120_000);
});
