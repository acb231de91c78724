/**
 * Two `chatbridge serve --simulate --database` devices on one throwaway PostgreSQL, the real
 * product end to end: "front" runs no agent, "claude-box" runs one simulated Claude agent in
 * real Chromium. A prompt sent to the front with the front's own key is typed into the
 * other machine's simulated site and its answer comes back to the caller on the front;
 * a cancel sent to the front presses Stop on that page; a SIGTERM on the worker mid-answer
 * leaves that answer to the worker (the device leaves the list of online devices, and no
 * other takes the job), which collects it from its conversation when it runs again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { CLI, listening, simulationReady, trackProcesses, type Running } from '../support/processes.js';
import type { PgCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import { until } from '../support/until.js';

const procs = trackProcesses('chatbridge-cluster-sim-');
let cluster: PgCluster;
beforeAll(async () => {
  cluster = await sharedPostgres();
});
afterAll(() => cluster?.stop());

interface Device extends Running {
  key: string;
  dataDir: string;
}

/** A device; `dataDir`: the one it ran on before (the same device again). A stop gives running answers 1 s. */
async function device(database: string, name: string, agents: string, dataDir = procs.tempDir()): Promise<Device> {
  const args = [CLI, 'serve', '--simulate-agents', agents, '--port', '0', '--data-dir', dataDir, '--database', database, '--device-name', name, '--stop-grace', '1s'];
  const started = await listening(procs.launch(args), 30_000);
  return { ...started, key: await simulationReady(started, 60_000, `${name}'s simulated agents`), dataDir };
}

async function call(at: Device, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(at.url + path, {
    method,
    headers: { authorization: `Bearer ${at.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('serve --simulate on a shared database', () => {
  it("runs a prompt sent to one device on another device's simulated site, cancels across, and leaves an answer a clean stop cut to that device", async () => {
    const db = await cluster.createDatabase();
    const [front, worker] = await Promise.all([device(db, 'front', 'claude=0'), device(db, 'claude-box', 'claude=1')]);

    const answered = await call(front, 'POST', '/v1/completions', { prompt: 'Which machine answers this?', provider: 'claude', wait: true });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.response).toBe(simulatedAnswer('Claude', 'claude', 'Which machine answers this?', 1));
    const status = (await call(front, 'GET', '/v1/status')).body;
    expect(status.devices.map((d: { name: string; online: boolean; agents: unknown[] }) => [d.name, d.online, d.agents.length])).toEqual([
      ['front', true, 0],
      ['claude-box', true, 1],
    ]);

    // The front's cancel stops the page on the worker: its agent is free for the next prompt.
    const hanging = await call(front, 'POST', '/v1/completions', { prompt: '[[sim:hang]] never ends', provider: 'claude', wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    await until(async () => (await call(front, 'GET', `/v1/completions/${hanging.body.id}`)).body.status === 'dispatched', 30_000, 'the worker typing it');
    expect((await call(front, 'DELETE', `/v1/completions/${hanging.body.id}`)).body.status).toBe('cancelled');
    const next = await call(worker, 'POST', '/v1/completions', { prompt: 'Still there?', provider: 'claude', wait: true });
    expect(next.body.status).toBe('succeeded');

    // A clean stop of the worker mid-answer: the job stays the worker's, the device offline.
    const prompt = 'Cut mid-answer [[sim:ms=6000]]';
    const stranded = await call(front, 'POST', '/v1/completions', { prompt, provider: 'claude', wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    const claudeSite = /claude (http:\S+),/.exec(worker.out.stdout)![1]!;
    const sends = async () => ((await (await fetch(`${claudeSite}/__sim/log`)).json()) as { sends: { prompt: string }[] }).sends.filter((s) => s.prompt === prompt);
    await until(async () => (await sends()).length === 1, 30_000, 'the worker sending it');
    worker.child.kill('SIGTERM');
    expect((await worker.closed).code).toBe(0);
    expect(worker.out.stdout).toMatch(/\nstopped: 1 answer still being written is collected from its conversation after the restart\n$/);
    const left = (await call(front, 'GET', `/v1/completions/${stranded.body.id}`)).body;
    expect([left.status, left.attempts]).toEqual(['dispatched', 1]);
    const after = (await call(front, 'GET', '/v1/status')).body;
    expect(after.devices.find((d: { name: string }) => d.name === 'claude-box').online).toBe(false);

    // Back on its data dir, the worker collects the answer from its conversation: sent once.
    const again = await device(db, 'claude-box', 'claude=1', worker.dataDir);
    const done = (await call(front, 'GET', `/v1/completions/${stranded.body.id}?wait=true`)).body;
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, response: simulatedAnswer('Claude', 'claude', prompt, 1) });
    // The simulated site kept its address and log across the worker's restart.
    expect(again.out.stdout).toContain(`claude ${claudeSite},`);
    expect(await sends()).toHaveLength(1);
    again.child.kill('SIGTERM');
    expect((await again.closed).code).toBe(0);
    front.child.kill('SIGTERM');
    expect((await front.closed).code).toBe(0);
  }, 180_000);
});
