/**
 * Several instances on one PostgreSQL (issue 11), each a real process of its own
 * (dist/test/support/scripted-server.js with --database: `serve --database` with scripted
 * agents instead of browsers), each with its own data dir and agents:
 *
 * - a job submitted on one instance is run by another's agent, and its `wait: true` caller
 *   on the first hears the answer;
 * - a long poll on one instance ends when the job finishes on another;
 * - a cancel received by one instance stops the run on another;
 * - an instance SIGKILLed mid-job (its prompt not sent yet): its job gets an `agent_lost` attempt and is finished by a
 *   surviving instance within 15 s;
 * - concurrent repeats of one Idempotency-Key spread over the instances make one job;
 * - /v1/status.devices lists the instances.
 *
 * Needs dist/ built and Debian's postgresql (initdb) installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listening, SCRIPTED_SERVER, trackProcesses, type Proc, type Running } from '../support/processes.js';
import type { PgCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import { until } from '../support/until.js';

const { launch, tempDir } = trackProcesses('chatbridge-cluster-');

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await sharedPostgres();
});
afterAll(() => cluster?.stop());

interface Instance extends Running {
  name: string;
  dataDir: string;
  /** The instance's admin token: every scope, on that instance. */
  token: string;
}

/** One instance: a device named `name` on `database`, with scripted `agents` (e.g. "chatgpt=1"; "" for none). */
async function instance(database: string, name: string, agents: string): Promise<Instance> {
  const dataDir = tempDir();
  const started = await listening(
    launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--port', '0', '--agents', agents, '--database', database, '--device-name', name]),
  );
  return { ...started, name, dataDir, token: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() };
}

interface Res {
  status: number;
  body: any;
}

async function call(at: Instance, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const res = await fetch(at.url + path, {
    method,
    headers: { authorization: `Bearer ${at.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The ids of the agents an instance runs itself (its dashboard's list). */
async function localAgents(at: Instance): Promise<string[]> {
  const state = await call(at, 'GET', '/admin/v1/state');
  expect(state.status).toBe(200);
  return (state.body.agents as { id: string }[]).map((a) => a.id);
}

const exited = (p: Proc) => p.closed;

describe('instances sharing one PostgreSQL', () => {
  it('a job submitted on one instance runs on another, and the waiting caller, a long poll and a cancel all cross over', async () => {
    const db = await cluster.createDatabase();
    // A answers the API but runs no agent; B runs the only one.
    const [a, b] = await Promise.all([instance(db, 'front', ''), instance(db, 'worker', 'chatgpt=1')]);
    const [agent] = await localAgents(b);

    const waited = await call(a, 'POST', '/v1/completions', { prompt: 'hello from A', wait: true });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    expect(waited.body.status).toBe('succeeded');
    expect(waited.body.response).toMatch(new RegExp(`^echo\\(${agent}#1\\): hello from A$`));

    // A long poll on A ends when the job, run by B, finishes.
    const queued = await call(a, 'POST', '/v1/completions', { prompt: '[[ms=400]] polled', wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    expect(queued.status).toBe(202);
    const polled = await call(a, 'GET', `/v1/completions/${queued.body.id}?wait=true`);
    expect(polled.body.status).toBe('succeeded');
    expect(polled.body.response).toContain('polled');

    // A cancel received by A stops the run on B: the job is cancelled, B's agent free again.
    const hanging = await call(a, 'POST', '/v1/completions', { prompt: '[[hang]]', wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    await until(async () => (await call(b, 'GET', `/v1/completions/${hanging.body.id}`)).body.status === 'dispatched', 15_000, 'B running the job');
    const cancelled = await call(a, 'DELETE', `/v1/completions/${hanging.body.id}`);
    expect(cancelled.body.status).toBe('cancelled');
    const after = await call(b, 'POST', '/v1/completions', { prompt: 'after the cancel', wait: true });
    expect(after.body.status).toBe('succeeded');
  });

  it('a --no-api device answers no HTTP and runs the jobs other instances take in', async () => {
    const db = await cluster.createDatabase();
    const front = await instance(db, 'front', '');
    const dataDir = tempDir();
    const headless = launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--agents', 'qwen=1', '--database', db, '--device-name', 'back', '--no-api']);
    await until(() => headless.out.stdout.includes('running\n'), 15_000, 'the --no-api device running');
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
    const answered = await call(front, 'POST', '/v1/completions', { prompt: 'via the back room', wait: true });
    expect(answered.body.status).toBe('succeeded');
    expect(answered.body.provider).toBe('qwen');
  });

  it('settings are shared: agents paused on one instance are paused on all, and resumed from another', async () => {
    const db = await cluster.createDatabase();
    const [a, b] = await Promise.all([instance(db, 'a', ''), instance(db, 'b', 'deepseek=1')]);
    expect((await call(a, 'PATCH', '/admin/v1/settings', { paused: true })).status).toBe(200);
    // B hears the pause: a job that must start now is refused there, one with a callback waits.
    await until(async () => (await call(b, 'POST', '/v1/completions', { prompt: 'now?', wait: false })).status === 503, 15_000, 'B paused');
    const refused = await call(b, 'POST', '/v1/completions', { prompt: 'now?', wait: false });
    expect(refused.body.error.code).toBe('NO_DEVICE_ONLINE');
    const later = await call(a, 'POST', '/v1/completions', { prompt: 'later', wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await call(b, 'GET', `/v1/completions/${later.body.id}`)).body.status).toBe('queued');
    expect((await call(b, 'PATCH', '/admin/v1/settings', { paused: false })).status).toBe(200);
    const done = await call(a, 'GET', `/v1/completions/${later.body.id}?wait=true`);
    expect(done.body.status).toBe('succeeded');
  });

  it('hourly caps hold across instances: a global cap of 3 starts 3 jobs in all, and every instance counts them', async () => {
    const db = await cluster.createDatabase();
    const nodes = await Promise.all(['x', 'y', 'z'].map((n) => instance(db, n, 'chatgpt=2')));
    expect((await call(nodes[0]!, 'PATCH', '/admin/v1/settings', { global_cap: 3 })).status).toBe(200);
    await until(async () => (await call(nodes[2]!, 'GET', '/v1/status')).body.global.rate_limit_per_hour === 3, 15_000, 'the cap heard');
    const jobs = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        call(nodes[i % 3]!, 'POST', '/v1/completions', { prompt: `capped ${i}`, wait: false, callback_url: 'https://127.0.0.1:9/hook' }),
      ),
    );
    const states = async () => Promise.all(jobs.map(async (j) => (await call(nodes[0]!, 'GET', `/v1/completions/${j.body.id}`)).body.status));
    await until(async () => (await states()).filter((s) => s === 'succeeded').length === 3, 10_000, 'three jobs done');
    // Every agent stays free and every instance keeps trying as jobs finish: none starts a 4th.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await states()).sort()).toEqual([...Array(3).fill('succeeded'), ...Array(6).fill('queued')].sort());
    for (const node of nodes) {
      const status = (await call(node, 'GET', '/v1/status')).body;
      expect(status.global.used_this_hour).toBe(3);
      expect(status.global.next_slot_at).not.toBeNull();
    }
  });

  it("keys are shared: a key made on one instance works on all, its write budget is one across them, a revoke holds everywhere", async () => {
    const db = await cluster.createDatabase();
    const nodes = await Promise.all(['p', 'q', 'r'].map((n) => instance(db, n, '')));
    const made = await call(nodes[0]!, 'POST', '/admin/v1/keys', { name: 'script', scopes: ['completions:read', 'completions:write'] });
    expect(made.status).toBe(201);
    const key = made.body.secret as string;
    const asKey = (at: Instance) => ({ ...at, token: key });
    for (const node of nodes) expect((await call(asKey(node), 'GET', '/v1/completions/job_unknown')).status).toBe(404);

    // 620 writes spread over three instances: api.md's 600 a minute is the key's, not each instance's.
    const started = Date.now();
    const answers: number[] = [];
    for (let i = 0; i < 620; i += 20) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 20 }, (_, j) => call(asKey(nodes[(i + j) % 3]!), 'DELETE', '/v1/completions/job_unknown')))).map(
          (r) => r.status,
        ),
      );
    }
    const allowed = answers.filter((s) => s === 404).length;
    // A budget refills one request per 100 ms after its burst.
    expect(allowed).toBeGreaterThanOrEqual(600);
    expect(allowed).toBeLessThanOrEqual(600 + Math.ceil((Date.now() - started) / 100));
    expect(answers.filter((s) => s === 429).length).toBe(620 - allowed);

    const keyId = made.body.key.id as string;
    expect((await call(nodes[1]!, 'DELETE', `/admin/v1/keys/${keyId}`)).status).toBe(200);
    for (const node of nodes) {
      await until(async () => (await call(asKey(node), 'GET', '/v1/status')).status === 401, 15_000, `the revoke heard by ${node.name}`);
    }
  });

  it('SIGKILL of an instance mid-job, before its prompt went: the job gets an agent_lost attempt and finishes on another within 15 s', async () => {
    const db = await cluster.createDatabase();
    const a = await instance(db, 'a', 'claude=1');
    const [doomed] = await localAgents(a);
    // A's agent never gets to send it: run again anywhere else, it answers at once. (A prompt
    // A had sent would stay A's to collect: pg-job-store.test.ts.)
    const job = await call(a, 'POST', '/v1/completions', { prompt: `[[hang-on=${doomed}]] long`, wait: false, callback_url: 'https://127.0.0.1:9/hook' });
    expect(job.status).toBe(202);
    await until(async () => (await call(a, 'GET', `/v1/completions/${job.body.id}`)).body.status === 'dispatched', 15_000, 'A running the job');
    // B starts after A took the job, so only A's death can bring the job to B.
    const b = await instance(db, 'b', 'claude=1');
    const [survivor] = await localAgents(b);
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    await exited(a);

    const done = await until(
      async () => {
        const now = (await call(b, 'GET', `/v1/completions/${job.body.id}?wait=true`)).body;
        return now.status === 'succeeded' ? now : undefined;
      },
      20_000,
      'the job finished by the survivor',
    );
    const took = Date.now() - killedAt;
    expect(done.agent_id).toBe(survivor);
    expect(done.attempts).toBe(2);
    const detail = await call(b, 'GET', `/admin/v1/jobs/${job.body.id}`);
    expect(detail.body.attempts.map((t: { outcome: string }) => t.outcome)).toEqual(['agent_lost', 'succeeded']);
    // Re-queued within 15 s of the kill; the survivor's run is immediate.
    expect(took).toBeLessThan(15_000);
  });

  it('repeats of one Idempotency-Key spread over three instances make one job; status lists the devices', async () => {
    const db = await cluster.createDatabase();
    const nodes = await Promise.all(['one', 'two', 'three'].map((n) => instance(db, n, 'gemini=1')));
    const body = { prompt: '[[ms=200]] once', wait: false, callback_url: 'https://127.0.0.1:9/hook' };
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call(nodes[i % 3]!, 'POST', '/v1/completions', body, { 'idempotency-key': 'spread-1' })),
    );
    const ids = new Set(answers.map((r) => r.body.id));
    expect(ids.size, JSON.stringify(answers.map((r) => [r.status, r.body]))).toBe(1);
    expect(answers.filter((r) => r.status === 202)).toHaveLength(1);
    expect(answers.every((r) => r.status === 202 || r.status === 200)).toBe(true);

    const status = await call(nodes[0]!, 'GET', '/v1/status');
    const devices = status.body.devices as { base_url: string | null; online: boolean }[];
    expect(devices.map((d) => d.base_url).sort()).toEqual(nodes.map((n) => n.url).sort());
    expect(devices.every((d) => d.online)).toBe(true);
  });
});
