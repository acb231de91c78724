/**
 * Durability across crashes and restarts, with the real service in its own process
 * (dist/test/support/scripted-server.js: `serve` with scripted agents instead of browsers).
 *
 * - SIGKILL while hundreds of jobs are queued and every agent writes an answer: no accepted
 *   job is lost; the answers of those that were running are collected from their
 *   conversations after the restart, under the same attempt (a prompt is never sent twice),
 *   all finish.
 * - A clean stop (SIGTERM, SIGINT) while jobs run: exit code 0; the answers that finish
 *   within the grace are kept, those still being written are collected after the restart,
 *   and jobs not sent yet go back to the queue without spending an attempt.
 * - A deadline that passes while the service is down: the job is `expired` at restart.
 *
 * Needs dist/ built (`tsc` runs before `vitest run` in `npm test`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, CALLBACK, inPool, pollUntil as until, serverProcesses, sigkill, sigterm, stopWith, type Res } from '../support/restartable-server.js';
import { storedJob, storedJobs } from '../support/service-driver.js';

const { tempDir, createKey, startServer } = serverProcesses('chatbridge-crash-');

// ---------------------------------------------------------------------------------------

describe('crash recovery (service in its own process)', () => {
  it('SIGKILL with hundreds queued and every agent writing an answer: nothing accepted is lost, the answers being written are collected, all finish', async () => {
    const dir = tempDir();
    // The first command creates the database; the others may then run together. (Commands
    // racing on a fresh data dir trip over the schema migration: see test/cli/user-mistakes.test.ts.)
    const keys = [await createKey(dir, 'k1')];
    keys.push(...(await Promise.all([2, 3, 4].map((i) => createKey(dir, `k${i}`)))));
    const AGENTS = 'chatgpt=3,claude=2';
    let server = await startServer(dir, AGENTS);
    const url1 = server.url;

    // Every id the service accepted (202, or 200 for a wait: true that finished in time).
    const accepted = new Map<string, string>(); // id → prompt
    const BACKGROUND = 480;
    const providers = [null, 'chatgpt', 'claude'] as const;

    // Held wait: true requests. "hi" ones jump the queue and answer before the kill; "lo"
    // ones are last in the queue, so they are still held open when the process dies.
    const runTag = Math.random().toString(36).slice(2);
    const held = [
      ...Array.from({ length: 6 }, (_, i) => ({ tag: `hi-${i}`, priority: 100 })),
      ...Array.from({ length: 12 }, (_, i) => ({ tag: `lo-${i}`, priority: -10 })),
    ].map((h) => ({
      ...h,
      idem: `held-${runTag}-${h.tag}`,
      body: { prompt: `held ${h.tag} [[ms=15]]`, priority: h.priority, wait: true, metadata: { held: h.tag } },
    }));
    const heldResults = new Map<string, Res | Error>();
    const hold = (h: (typeof held)[number], i: number) =>
      api(url1, keys[i % keys.length]!, 'POST', '/v1/completions', h.body, { 'idempotency-key': h.idem }).then(
        (r) => {
          heldResults.set(h.tag, r);
          if (r.status === 200) accepted.set(r.body.id, h.body.prompt);
        },
        (e: Error) => void heldResults.set(h.tag, e),
      );
    // The "lo" ones go in after the background jobs: sent first, an idle agent could take one at once.
    const heldDone = held.filter((h) => h.priority === 100).map(hold);

    const refusals: Res[] = [];
    await inPool(
      Array.from({ length: BACKGROUND }, (_, i) => i),
      32,
      async (i) => {
        // Reopened after the kill, a conversation shows the answer (the site went on writing it).
        const prompt = `bulk ${i} [[ms=${20 + ((i * 37) % 80)}]] [[collect=answer]]`;
        const r = await api(url1, keys[i % keys.length]!, 'POST', '/v1/completions', {
          prompt,
          provider: providers[i % 3],
          wait: false,
          callback_url: CALLBACK,
          metadata: { i },
        });
        if (r.status === 202) {
          expect(r.body).toMatchObject({ id: expect.stringMatching(/^job_/), status: 'queued' });
          accepted.set(r.body.id, prompt);
        } else refusals.push(r);
      },
    );
    expect(refusals, 'every background submission is accepted').toEqual([]);
    heldDone.push(...held.filter((h) => h.priority === -10).map(hold));

    // The high-priority held requests answer 200 well before the kill.
    for (const h of held.filter((x) => x.priority === 100)) {
      await until(`held ${h.tag}`, async () => heldResults.has(h.tag), 10_000, 20);
      const r = heldResults.get(h.tag) as Res;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.status).toBe('succeeded');
    }

    // Kill while the queue is deep and every agent is writing an answer. Each agent's next
    // job is one that never ends by itself, so the kill finds all five under way however
    // late it comes (on a loaded machine, jobs of 20 to 100 ms could all end between a look
    // and the kill).
    const writing: string[] = [];
    for (const provider of ['chatgpt', 'chatgpt', 'chatgpt', 'claude', 'claude']) {
      const prompt = `writing ${writing.length} [[hang]] [[collect=answer]]`;
      const r = await api(url1, keys[0]!, 'POST', '/v1/completions', { prompt, provider, priority: 50, wait: false, callback_url: CALLBACK });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      accepted.set(r.body.id, prompt);
      writing.push(r.body.id);
    }
    await until(
      'every writing job sent, with a deep queue behind',
      async () => {
        const sent = new Set((await storedJobs(dir)).filter((s) => s.attempts.some((a) => a.sent_conversation !== null && a.ended_at === null)).map((s) => s.job.id));
        const s = (await api(url1, keys[0]!, 'GET', '/v1/status')).body;
        return writing.every((id) => sent.has(id)) && s.agents.busy === 5 && s.queue.depth >= 200 ? s : undefined;
      },
      10_000,
      20,
    );
    await sigkill(server);
    await Promise.all(heldDone);
    const lo = held.filter((h) => h.priority === -10);
    for (const h of lo) expect(heldResults.get(h.tag), `held ${h.tag} was still open at the kill`).toBeInstanceOf(Error);

    // What the dead process left on disk: every accepted job, hundreds queued, the five running.
    const atKill = (await storedJobs(dir)).map((s) => s.job);
    const byId = new Map(atKill.map((job) => [job.id, job]));
    const missing = [...accepted.keys()].filter((id) => !byId.has(id));
    expect(missing, 'accepted jobs missing from the database after SIGKILL').toEqual([]);
    for (const [id, prompt] of accepted) expect(byId.get(id)!.prompt).toBe(prompt);
    expect(atKill.filter((job) => job.status === 'queued').length).toBeGreaterThanOrEqual(200);
    const runningAtKill = atKill.filter((job) => job.status === 'dispatched').map((job) => ({ id: job.id, attempts: job.attempts }));
    expect(runningAtKill.map((r) => r.id).sort()).toEqual([...writing].sort());
    expect(atKill.length).toBeGreaterThanOrEqual(accepted.size);

    // Restart on the same data dir.
    server = await startServer(dir, AGENTS);
    const url2 = server.url;

    // The held requests whose connection died are retried with their Idempotency-Key.
    await Promise.all(
      lo.map(async (h, i) => {
        const r = await api(url2, keys[i % keys.length]!, 'POST', '/v1/completions', h.body, { 'idempotency-key': h.idem });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body).toMatchObject({ status: 'succeeded', metadata: { held: h.tag } });
        accepted.set(r.body.id, h.body.prompt);
      }),
    );

    // Everything drains.
    await until(
      'an empty queue after the restart',
      async () => {
        const s = (await api(url2, keys[0]!, 'GET', '/v1/status')).body;
        return s.queue.depth === 0 && s.agents.busy === 0;
      },
      40_000,
      200,
    );

    // Every accepted job is there by GET, and succeeded (the prompts never fail).
    const notSucceeded: unknown[] = [];
    await inPool([...accepted], 16, async ([id, prompt], i) => {
      const r = await api(url2, keys[i % keys.length]!, 'GET', `/v1/completions/${id}`);
      if (r.status !== 200 || r.body.status !== 'succeeded' || !String(r.body.response).endsWith(`: ${prompt}`)) {
        notSucceeded.push({ id, status: r.status, body: r.body });
      }
    });
    expect(notSucceeded).toEqual([]);

    // The jobs that were running at the kill, each sent: their answers were collected from
    // their conversations under the same attempt, nothing sent again.
    for (const { id, attempts } of runningAtKill) {
      const r = await api(url2, keys[0]!, 'GET', `/v1/completions/${id}`);
      expect(r.body, id).toMatchObject({ status: 'succeeded', attempts, response: expect.stringMatching(/^collected\(agt_\w+\): writing /) });
    }

    expect(await sigterm(server)).toEqual({ code: 0, signal: null });

    // The attempts tell the same story.
    const atEnd = await storedJobs(dir);
    const attemptsOf = new Map(atEnd.map((s) => [s.job.id, s.attempts]));
    const allAttempts = atEnd.flatMap((s) => s.attempts);
    for (const { id, attempts } of runningAtKill) {
      const rows = attemptsOf.get(id)!;
      expect(rows).toHaveLength(attempts);
      expect(rows[attempts - 1]).toMatchObject({ outcome: 'succeeded', sent_conversation: expect.stringMatching(/^script:\/\//) });
      expect(rows[attempts - 1]!.detail).toMatch(/^The service stopped before the answer finished: collected by reopening its conversation/);
    }
    // No attempt was lost: a prompt that went is never the reason for a second send.
    expect(allAttempts.filter((a) => a.outcome === 'agent_lost')).toEqual([]);
    expect(allAttempts.filter((a) => a.ended_at === null)).toEqual([]);
    expect(atEnd.filter((s) => s.job.status !== 'succeeded').map((s) => ({ id: s.job.id, status: s.job.status }))).toEqual([]);
    expect(atEnd.length).toBeGreaterThanOrEqual(accepted.size);
    // No job ran to success twice, and each has exactly one success.
    expect(atEnd.filter((s) => s.attempts.filter((a) => a.outcome === 'succeeded').length !== 1).map((s) => s.job.id)).toEqual([]);
    // One job per held request, in spite of the retry after the crash.
    const perHeld = new Map<string, number>();
    for (const { job } of atEnd) {
      const tag = (JSON.parse(job.metadata) as { held?: string | null }).held;
      if (tag != null) perHeld.set(tag, (perHeld.get(tag) ?? 0) + 1);
    }
    expect(perHeld.size).toBe(held.length);
    for (const [tag, n] of perHeld) expect(n, `jobs for held ${tag}`).toBe(1);
  }, 60_000);

  it('a clean stop while jobs run: what finishes within the grace is kept, an answer still written is collected after the restart, a prompt not sent goes back unspent', async () => {
    const dir = tempDir();
    const key = await createKey(dir, 'k');
    const AGENTS = 'chatgpt=2,claude=1';
    let server = await startServer(dir, AGENTS, 0, 3_000);
    const submit = async (body: Record<string, unknown>) => {
      const r = await api(server.url, key, 'POST', '/v1/completions', { wait: false, callback_url: CALLBACK, ...body });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      return r.body.id as string;
    };
    const dispatched = async (...ids: string[]) =>
      (await Promise.all(ids.map((id) => api(server.url, key, 'GET', `/v1/completions/${id}`)))).every((j) => j.body.status === 'dispatched');
    const writing = await submit({ prompt: 'writing [[hang]] [[collect=answer]]', provider: 'chatgpt' });
    // Typed for a minute: the stop comes before it is sent.
    const typing = await submit({ prompt: 'typing [[typing=60000]]', provider: 'claude' });
    const short: string[] = [];
    for (let i = 0; i < 5; i++) short.push(await submit({ prompt: `short ${i} [[ms=20]]` }));
    await until('the two long jobs running', () => dispatched(writing, typing), 15_000, 20);
    // A held request open at the stop, for a job queued behind the running ones.
    const heldReq = api(server.url, key, 'POST', '/v1/completions', { prompt: 'held [[ms=20]]', provider: 'claude' }).then(
      (r) => r,
      (e: Error) => e,
    );
    await until('the held job stored', async () => (await storedJobs(dir)).some((s) => s.job.prompt === 'held [[ms=20]]'), 15_000, 20);
    // Submitted last, so that it runs at the stop however slow the machine: its 2.8 s end
    // within the 3 s grace.
    const finishing = await submit({ prompt: 'finishing [[ms=2800]]', provider: 'chatgpt' });
    await until('the finishing job running', () => dispatched(finishing), 15_000, 20);

    const t0 = Date.now();
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    // The grace (3 s) was waited for the answer still written; no more.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(server.out.stdout).toMatch(
      /\nstopped: 1 running job ended within the grace; 1 job went back to the queue, not sent yet; 1 answer still being written is collected from its conversation after the restart\n$/,
    );
    // The held caller is answered (the job continues), not hung up on.
    const held = await heldReq;
    expect(held).not.toBeInstanceOf(Error);
    expect(held).toMatchObject({ status: 504, body: { error: { code: 'JOB_TIMEOUT' } } });
    expect(existsSync(join(dir, 'server.json'))).toBe(false);

    const stored = new Map((await storedJobs(dir)).map((s) => [s.job.id, s]));
    const job = (id: string) => stored.get(id)!.job;
    const attempts = (id: string) =>
      stored.get(id)!.attempts.map(({ attempt, outcome, error_code, detail, ended_at, sent_conversation }) => ({ attempt, outcome, error_code, detail, ended_at, sent_conversation }));
    expect(job(finishing)).toMatchObject({ status: 'succeeded', attempts: 1 });
    // Left answering, where the restart finds it: the attempt open, the conversation kept.
    expect(job(writing)).toMatchObject({ status: 'dispatched', attempts: 1 });
    expect(attempts(writing)).toEqual([{ attempt: 1, outcome: null, error_code: null, detail: null, ended_at: null, sent_conversation: expect.stringMatching(/^script:\/\/agt_/) }]);
    expect(job(typing)).toMatchObject({ status: 'queued', attempts: 1 });
    expect(attempts(typing)).toEqual([
      {
        attempt: 1,
        outcome: 'agent_lost',
        error_code: 'SERVICE_STOPPED',
        detail: 'service stopped before the prompt went: back to the queue, not counted as an attempt.',
        ended_at: expect.any(Number),
        sent_conversation: null,
      },
    ]);

    server = await startServer(dir, AGENTS, 0, 60_000);
    const collected = await api(server.url, key, 'GET', `/v1/completions/${writing}?wait=true`);
    expect(collected.body).toMatchObject({ status: 'succeeded', attempts: 1, response: expect.stringMatching(/^collected\(agt_\w+\): writing /) });
    // The prompt not sent before runs now, as attempt 2 (the first was not spent: retry-policy.ts).
    await until('the typed job running again', async () => (await api(server.url, key, 'GET', `/v1/completions/${typing}`)).body.attempts === 2, 15_000, 20);
    expect((await api(server.url, key, 'GET', `/v1/completions/${typing}`)).body.status).toBe('dispatched');
    expect((await api(server.url, key, 'DELETE', `/v1/completions/${typing}`)).status).toBe(200);
    for (const id of short) expect((await api(server.url, key, 'GET', `/v1/completions/${id}?wait=true`)).body.status, id).toBe('succeeded');
    const heldId = (held as Res).body.error.details?.job_id as string | undefined;
    if (heldId) expect((await api(server.url, key, 'GET', `/v1/completions/${heldId}?wait=true`)).body.status).toBe('succeeded');

    // Ctrl-C twice: the second ends the 60 s grace at once; the answer still written is left to collect.
    const hanging = await submit({ prompt: 'hanging [[hang]] [[collect=answer]]', provider: 'chatgpt' });
    await until('the hanging job sent', async () => (await storedJob(dir, hanging)).attempts.some((a) => a.sent_conversation !== null), 15_000, 20);
    const t1 = Date.now();
    server.child.kill('SIGINT');
    await until('the grace announced', async () => server.out.stderr.includes('press Ctrl-C again to stop now'), 15_000, 20);
    expect(await stopWith(server, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(Date.now() - t1).toBeLessThan(10_000);
    expect(server.out.stdout).toMatch(/\nstopped: 1 answer still being written is collected from its conversation after the restart\n$/);
  }, 60_000);

  it('a job whose deadline passes while the service is down is expired at restart, and does not run again', async () => {
    const dir = tempDir();
    const key = await createKey(dir, 'k');
    const AGENTS = 'chatgpt=1';
    let server = await startServer(dir, AGENTS);
    const submit = async (body: Record<string, unknown>) => {
      const r = await api(server.url, key, 'POST', '/v1/completions', { wait: false, callback_url: CALLBACK, ...body });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      return r.body.id as string;
    };
    const submittedAt = Date.now();
    // Running at the kill, and would never finish by itself.
    const running = await submit({ prompt: 'stuck [[hang]]', provider: 'chatgpt', deadline_ms: 10_000 });
    // Queued at the kill: no gemini agent exists.
    const queued = await submit({ prompt: 'never placed', provider: 'gemini', deadline_ms: 10_000 });
    // Queued behind the stuck one, with the default deadline: must still run after restart.
    const survivor = await submit({ prompt: 'survivor [[ms=10]]', provider: 'chatgpt' });
    await until(
      'the stuck job running',
      async () => (await api(server.url, key, 'GET', `/v1/completions/${running}`)).body.status === 'dispatched',
      5_000,
      20,
    );
    await sigkill(server);

    // Down until the 10 s deadline has passed: back on a clock that far on.
    server = await startServer(dir, AGENTS, Math.max(0, submittedAt + 10_300 - Date.now()));

    for (const id of [running, queued]) {
      const r = await api(server.url, key, 'GET', `/v1/completions/${id}`);
      expect(r.status).toBe(200);
      expect(r.body, id).toMatchObject({ status: 'expired', response: null, finished_at: expect.any(String) });
    }
    const s = await api(server.url, key, 'GET', `/v1/completions/${survivor}?wait=true`);
    expect(s.body).toMatchObject({ status: 'succeeded', attempts: 1 });
    // The expired jobs stay expired and never dispatch again: the one agent ran the survivor,
    // queued after the stuck job, so its rounds since the restart passed the stuck job by.
    const again = await api(server.url, key, 'GET', `/v1/completions/${running}`);
    expect(again.body).toMatchObject({ status: 'expired', attempts: 1 });
    expect((await api(server.url, key, 'GET', `/v1/completions/${queued}`)).body).toMatchObject({ status: 'expired', attempts: 0 });
    expect(await sigterm(server)).toEqual({ code: 0, signal: null });

    const rows = (await storedJob(dir, running)).attempts;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.ended_at).not.toBeNull();
    expect(['agent_lost', 'timed_out']).toContain(rows[0]!.outcome);
    expect((await storedJob(dir, queued)).attempts).toHaveLength(0);
  }, 40_000);
});
