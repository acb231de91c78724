/**
 * The scheduler alone, on the real store in memory, with scripted agents and a manual clock:
 * one job per agent, dispatch order across accounts, a cancel relayed to the agent, the
 * per-attempt timeout, the deadline, the rest after a usage limit and the hourly cap all on
 * the clock, and an agent that dies mid-job. Each step awaits `settled()`, never a sleep.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../main/queue/hourly-usage.js';
import { COLLECT_MS } from '../../main/queue/attempts.js';
import { queueKit, restartKit, type QueueKit } from '../support/queue-kit.js';

let kit: QueueKit | undefined;
afterEach(async () => {
  expect(kit?.roundErrors ?? []).toEqual([]);
  await kit?.close();
  kit = undefined;
});

async function start(agents: Parameters<typeof queueKit>[0]): Promise<QueueKit> {
  kit = await queueKit(agents);
  return kit;
}

describe('dispatch', () => {
  it('gives an agent one job at a time; the next starts when the first ends', async () => {
    const k = await start({ chatgpt: 1 });
    const first = await k.submit({ prompt: 'first [[hang]]' });
    const second = await k.submit({ prompt: 'second' });
    await k.settled();
    expect(k.agents[0]!.runs.map((r) => r.prompt)).toEqual(['first [[hang]]']);
    expect([(await k.job(first.id)).status, (await k.job(second.id)).status]).toEqual(['dispatched', 'queued']);
    expect(k.scheduler.isRunningOn(k.agents[0]!.id)).toBe(true);

    await k.store.cancel(first.id, k.clock.now());
    await k.settled();
    expect(k.agents[0]!.runs.map((r) => [r.prompt, r.ended])).toEqual([
      ['first [[hang]]', 'cancelled'],
      ['second', 'answered'],
    ]);
    expect(await k.job(second.id)).toMatchObject({ status: 'succeeded', attempts: 1, agent_id: k.agents[0]!.id });
  });

  it('serves accounts in turn, each by priority then age, and the next round starts after the account served last', async () => {
    const k = await start({ claude: 1 });
    await k.storage.settings.setPaused(true);
    for (const [prompt, account_id, priority] of [
      ['a-old', 'acct_a', 0],
      ['a-urgent', 'acct_a', 9],
      ['a-new', 'acct_a', 0],
      ['b-only', 'acct_b', 0],
    ] as const) {
      await k.submit({ prompt, account_id, priority });
      k.clock.advance(1_000);
    }
    await k.storage.settings.setPaused(false);
    await k.settled();
    expect(k.agents[0]!.runs.map((r) => r.prompt)).toEqual(['a-urgent', 'b-only', 'a-old', 'a-new']);
  });

  it('relays a cancel to the agent running the job, which is then free', async () => {
    const k = await start({ gemini: 1 });
    const job = await k.submit({ prompt: 'long [[hang]]' });
    await k.settled();
    const moved = await k.store.cancel(job.id, k.clock.now());
    expect(moved?.job.status).toBe('cancelled');
    await k.settled();
    expect(k.agents[0]!.runs[0]!.ended).toBe('cancelled');
    expect(k.scheduler.isRunningOn(k.agents[0]!.id)).toBe(false);
    // The agent's late failure does not reopen the job.
    expect(await k.job(job.id)).toMatchObject({ status: 'cancelled', attempts: 1 });
    expect((await k.store.attempts(job.id)).map((a) => a.outcome)).toEqual(['cancelled']);
    expect(k.pool.isReady(k.agents[0]!.id)).toBe(true);
  });
});

describe('a long-thinking variant whose attempt runs out of time (decisions.md, "Models and modes")', () => {
  /** ChatGPT's pro thinks long (its own attempt limit); thinking does not. */
  const catalog = () => [
    { id: 'thinking', timeoutMs: null },
    { id: 'pro', timeoutMs: 2_700_000 },
  ];
  async function long(prompt: string, variant = 'pro'): Promise<{ k: QueueKit; id: string }> {
    kit = await queueKit({ chatgpt: 1 }, catalog);
    const job = await kit.submit({ prompt, req_provider: 'chatgpt', variant, timeout_ms: 5_000, deadline_at: kit.clock.now() + HOUR_MS });
    await kit.settled();
    kit.clock.advance(5_000);
    await kit.settled();
    return { k: kit, id: job.id };
  }
  const record = async (k: QueueKit, id: string) => (await k.store.attempts(id)).map((a) => [a.outcome, a.error_code, a.detail]);

  it('is cut with its page left answering, and the answer that finished after the cut is collected by reopening the conversation, never sent again', async () => {
    const { k, id } = await long('p [[hang]] [[collect=answer]]');
    const agent = k.agents[0]!;
    expect(agent.runs.map((r) => r.ended)).toEqual(['cut_to_collect']);
    expect(agent.collects).toEqual([{ prompt: 'p [[hang]] [[collect=answer]]', conversation: `script://${agent.id}/1`, ended: 'answered' }]);
    expect(await k.job(id)).toMatchObject({ status: 'succeeded', attempts: 1, response: `collected(${agent.id}): p [[hang]] [[collect=answer]]` });
    expect(await record(k, id)).toEqual([['succeeded', null, "The answer finished after the attempt's 5 s: collected by reopening its conversation, nothing sent again."]]);
    expect((await k.store.conversation((await k.job(id)).conversation_ref!))!.address).toBe(`script://${agent.id}/1`);
    expect(k.pool.isReady(agent.id)).toBe(true);
  });

  it('ends TIMEOUT, sent once, when reopening finds no answer', async () => {
    const { k, id } = await long('p [[hang]] [[collect=none]]');
    expect(await k.job(id)).toMatchObject({ status: 'failed', attempts: 1, error_code: 'TIMEOUT' });
    expect((await k.job(id)).error_message).toMatch(/^The answer was not collected, and its prompt is not sent again: the conversation \(script:\/\/.+\) was reopened after the attempt's 5 s: scripted: the conversation reopened shows no answer$/);
    expect((await record(k, id)).map((r) => r.slice(0, 2))).toEqual([['timed_out', 'ANSWER_NOT_COLLECTED']]);
    expect(k.agents[0]!.runs).toHaveLength(1);
  });

  it('gives the collection COLLECT_MS on the clock, then ends TIMEOUT', async () => {
    const { k, id } = await long('p [[hang]] [[collect=hang]]');
    k.clock.advance(COLLECT_MS - 1);
    await k.settled();
    expect((await k.job(id)).status).toBe('dispatched');
    k.clock.advance(1);
    await k.settled();
    expect(k.agents[0]!.collects.map((c) => c.ended)).toEqual(['timed_out']);
    expect(await k.job(id)).toMatchObject({ status: 'failed', error_code: 'TIMEOUT' });
    expect((await record(k, id))[0]![2]).toMatch(/no finished answer 120 s after reopening$/);
  });

  it('ends TIMEOUT at once when the page never gave the conversation an address to reopen', async () => {
    const { k, id } = await long('p [[hang]] [[no-address]]');
    expect(await k.job(id)).toMatchObject({ status: 'failed', error_code: 'TIMEOUT' });
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual(['timed_out']);
    expect(k.agents[0]!.collects).toEqual([]);
  });

  it('stops the collection on a cancel', async () => {
    const { k, id } = await long('p [[hang]] [[collect=hang]]');
    await k.store.cancel(id, k.clock.now());
    await k.settled();
    expect(k.agents[0]!.collects.map((c) => c.ended)).toEqual(['cancelled']);
    expect((await record(k, id)).map((r) => r[0])).toEqual(['cancelled']);
    expect(k.pool.isReady(k.agents[0]!.id)).toBe(true);
  });

  it('is no rule for the other variants: their attempt cut at its time is tried again', async () => {
    const { k, id } = await long('p [[hang]] [[collect=answer]]', 'thinking');
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual(['timed_out', undefined]);
    expect(k.agents[0]!.collects).toEqual([]);
    expect((await k.job(id)).attempts).toBe(2);
  });
});

describe('a clean stop: the answers under way get a grace, and nothing sent is sent again', () => {
  const record = async (k: QueueKit, id: string) => (await k.store.attempts(id)).map((a) => [a.outcome, a.error_code, a.detail]);

  it('records the answers that finish within the grace, as any answer', async () => {
    const k = await start({ chatgpt: 1 });
    const job = await k.submit({ prompt: 'p [[ms=30]]' });
    await k.settled();
    expect(await k.scheduler.stop(20_000)).toEqual({ ended: 1, requeued: 0, toCollect: 0, notCollected: 0 });
    expect(await k.job(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('cuts at the grace’s end on the clock: a prompt not sent yet goes back to the queue without spending an attempt', async () => {
    const k = await start({ chatgpt: 1 });
    const job = await k.submit({ prompt: 'p [[typing=600000]]', max_attempts: 1 });
    await k.settled();
    let report: unknown;
    const stopping = k.scheduler.stop(20_000).then((r) => (report = r));
    await k.settled();
    k.clock.advance(19_999);
    await k.settled();
    expect(report).toBeUndefined();
    k.clock.advance(1);
    expect(await stopping).toEqual({ ended: 0, requeued: 1, toCollect: 0, notCollected: 0 });
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual(['shutdown']);
    expect(await k.job(job.id)).toMatchObject({ status: 'queued', attempts: 1 });
    expect(await record(k, job.id)).toEqual([['agent_lost', 'SERVICE_STOPPED', 'service stopped before the prompt went: back to the queue, not counted as an attempt.']]);

    // Its only attempt was not spent: it runs again after the restart.
    kit = await restartKit(k, { chatgpt: 1 });
    await kit.settled();
    expect(await kit.job(job.id)).toMatchObject({ status: 'dispatched', attempts: 2 });
  });

  it('leaves an answer still being written to the restart, which collects it under the same attempt, sending nothing', async () => {
    const k = await start({ chatgpt: 1 });
    const job = await k.submit({ prompt: 'p [[hang]] [[collect=answer]]' });
    const waiting = await k.submit({ prompt: 'next' });
    await k.settled();
    const sender = k.agents[0]!;
    const stopping = k.scheduler.stop(20_000);
    // A second Ctrl-C: the grace ends at once.
    k.scheduler.endGrace();
    expect(await stopping).toEqual({ ended: 0, requeued: 0, toCollect: 1, notCollected: 0 });
    // Its page was left answering (no Stop pressed), and where to find the answer is kept.
    expect(sender.runs.map((r) => r.ended)).toEqual(['cut_to_collect']);
    expect(await k.job(job.id)).toMatchObject({ status: 'dispatched', attempts: 1 });
    expect((await k.store.attempts(job.id))[0]).toMatchObject({ ended_at: null, sent_conversation: `script://${sender.id}/1`, sent_turns_before: 0 });

    kit = await restartKit(k, { chatgpt: 1 });
    await kit.settled();
    const agent = kit.agents[0]!;
    expect(agent.collects).toEqual([{ prompt: 'p [[hang]] [[collect=answer]]', conversation: `script://${sender.id}/1`, ended: 'answered' }]);
    expect(await kit.job(job.id)).toMatchObject({ status: 'succeeded', attempts: 1, response: `collected(${agent.id}): p [[hang]] [[collect=answer]]` });
    expect(await record(kit, job.id)).toEqual([
      ['succeeded', null, 'The service stopped before the answer finished: collected by reopening its conversation once it ran again, nothing sent again.'],
    ]);
    // The agent collected before it took the next job.
    expect(agent.runs.map((r) => r.prompt)).toEqual(['next']);
    expect((await kit.job(waiting.id)).status).toBe('succeeded');
  });

  it('holds the agent for the collection (no other job meanwhile), and a stop during it leaves it to the next run again', async () => {
    const k = await start({ claude: 1 });
    const job = await k.submit({ prompt: 'p [[hang]] [[collect=hang]]' });
    await k.settled();
    k.scheduler.endGrace();
    await k.scheduler.stop(20_000);
    let next = await restartKit(k, { claude: 1 });
    kit = next;
    const waiting = await next.submit({ prompt: 'next' });
    await next.settled();
    expect(next.agents[0]!.collects.map((c) => c.ended)).toEqual([undefined]);
    expect((await next.job(waiting.id)).status).toBe('queued');

    next.scheduler.endGrace();
    expect(await next.scheduler.stop(20_000)).toEqual({ ended: 0, requeued: 0, toCollect: 1, notCollected: 0 });
    expect(next.agents[0]!.collects.map((c) => c.ended)).toEqual(['cut_to_collect']);
    next = await restartKit(next, { claude: 1 });
    kit = next;
    await next.settled();
    expect(next.agents[0]!.collects).toHaveLength(1);
    expect(await next.job(job.id)).toMatchObject({ status: 'dispatched', attempts: 1 });
    // A cancel reaches the collection as it reaches a run.
    await next.store.cancel(job.id, next.clock.now());
    await next.settled();
    expect(next.agents[0]!.collects.map((c) => c.ended)).toEqual(['cancelled']);
    expect((await next.job(waiting.id)).status).toBe('succeeded');
  });

  it('ends a prompt sent with no address to reopen as not collected: never sent again', async () => {
    const k = await start({ gemini: 1 });
    const job = await k.submit({ prompt: 'p [[hang]] [[no-address]]' });
    await k.settled();
    k.scheduler.endGrace();
    expect(await k.scheduler.stop(20_000)).toEqual({ ended: 0, requeued: 0, toCollect: 0, notCollected: 1 });
    expect(await k.job(job.id)).toMatchObject({ status: 'failed', error_code: 'TIMEOUT' });
    expect(await record(k, job.id)).toEqual([
      ['timed_out', 'ANSWER_NOT_COLLECTED', 'the prompt went, but the service stopped before the page gave its conversation an address to reopen.'],
    ]);
  });

  it('ends a collection left to an agent removed meanwhile as not collected', async () => {
    const k = await start({ qwen: 1 });
    const job = await k.submit({ prompt: 'p [[hang]] [[collect=answer]]' });
    await k.settled();
    k.scheduler.endGrace();
    await k.scheduler.stop(20_000);
    k.pool.remove(k.agents[0]!.id);
    kit = await restartKit(k, {});
    await kit.settled();
    expect(await kit.job(job.id)).toMatchObject({ status: 'failed', error_code: 'TIMEOUT' });
    expect((await record(kit, job.id))[0]![2]).toMatch(/^the agent that sent the prompt was removed before it could reopen the conversation \(script:/);
  });
});

describe('time, on the injected clock', () => {
  it('stops an attempt at timeout_ms exactly, and runs the job again', async () => {
    const k = await start({ deepseek: 1 });
    const job = await k.submit({ prompt: 'p [[hang]]', timeout_ms: 5_000 });
    await k.settled();
    k.clock.advance(4_999);
    await k.settled();
    expect(k.agents[0]!.runs).toHaveLength(1);
    expect((await k.job(job.id)).status).toBe('dispatched');
    k.clock.advance(1);
    await k.settled();
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual(['timed_out', undefined]);
    expect((await k.store.attempts(job.id)).map((a) => [a.outcome, a.error_code])).toEqual([
      ['timed_out', 'ATTEMPT_TIMEOUT'],
      [null, null],
    ]);
  });

  it('expires a job at its deadline, stopping its agent, and a queued one behind it', async () => {
    const k = await start({ qwen: 1 });
    const running = await k.submit({ prompt: 'p [[hang]]', deadline_at: k.clock.now() + 10_000 });
    const waiting = await k.submit({ prompt: 'q [[hang]]', deadline_at: k.clock.now() + 20_000 });
    await k.settled();
    k.clock.advance(9_999);
    await k.settled();
    expect((await k.job(running.id)).status).toBe('dispatched');
    k.clock.advance(1);
    await k.settled();
    expect(await k.job(running.id)).toMatchObject({ status: 'expired', error_code: 'JOB_TIMEOUT' });
    expect(k.agents[0]!.runs[0]!.ended).toBe('expired');
    // The agent took the next job; its own deadline ends it too.
    expect((await k.job(waiting.id)).status).toBe('dispatched');
    k.clock.advance(10_000);
    await k.settled();
    expect((await k.job(waiting.id)).status).toBe('expired');
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual(['expired', 'expired']);
  });

  it('rests an agent after a usage limit until the time it was given, without spending an attempt', async () => {
    const k = await start({ claude: 1 });
    const job = await k.submit({ prompt: 'p [[fail-once=rate_limited]] ' + Math.random(), deadline_at: k.clock.now() + 3 * HOUR_MS });
    await k.settled();
    const agent = k.agents[0]!;
    // No reset time on the banner: an hour on the clock.
    expect(k.pool.state(agent.id)).toBe('resting');
    expect(k.pool.cooldownUntil(agent.id)).toBe(k.clock.now() + HOUR_MS);
    expect(await k.job(job.id)).toMatchObject({ status: 'queued', attempts: 1 });
    k.clock.advance(HOUR_MS - 1);
    await k.settled();
    expect(agent.runs).toHaveLength(1);
    k.clock.advance(1);
    await k.settled();
    expect(agent.runs.map((r) => r.ended)).toEqual(['rate_limited', 'answered']);
    expect(await k.job(job.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('retries a failed attempt at once, and spaces an agent’s jobs by its pause on the clock', async () => {
    const k = await start({ chatgpt: 1 });
    await k.storage.settings.setPauseMs(30_000);
    const failing = await k.submit({ prompt: 'p [[fail-once=provider_error]] ' + Math.random() });
    await k.settled();
    const agent = k.agents[0]!;
    expect(agent.runs).toHaveLength(1);
    expect(k.pool.pauseUntil(agent.id)).toBe(k.clock.now() + 30_000);
    k.clock.advance(29_999);
    await k.settled();
    expect(agent.runs).toHaveLength(1);
    k.clock.advance(1);
    await k.settled();
    expect(agent.runs.map((r) => r.ended)).toEqual(['provider_error', 'answered']);
    expect((await k.store.attempts(failing.id)).map((a) => a.error_code)).toEqual(['PROVIDER_ERROR', null]);
  });

  it('holds a job at an agent’s hourly cap until the first start leaves the rolling hour', async () => {
    const k = await start({ perplexity: 1 });
    const agent = k.agents[0]!;
    k.pool.setCap(agent.id, 1);
    await k.submit({ prompt: 'one' });
    await k.settled();
    k.clock.advance(10 * 60_000);
    const held = await k.submit({ prompt: 'two' });
    await k.settled();
    expect(agent.runs).toHaveLength(1);
    expect(k.scheduler.capsFreeAt(k.pool.get(agent.id)!)).toBe(k.clock.now() + 50 * 60_000);
    k.clock.advance(50 * 60_000 - 1);
    await k.settled();
    expect((await k.job(held.id)).status).toBe('queued');
    k.clock.advance(1);
    await k.settled();
    expect(agent.runs.map((r) => r.prompt)).toEqual(['one', 'two']);
    expect((await k.job(held.id)).status).toBe('succeeded');
  });
});

describe('an agent lost mid-job', () => {
  it('records agent_lost with what broke, and the job runs again, on another agent when one is free', async () => {
    const k = await start({ chatgpt: 2 });
    const [crashing, healthy] = k.agents as [typeof k.agents[0], typeof k.agents[0]];
    const run = crashing.run.bind(crashing);
    crashing.run = async (task) => {
      crashing.setReadiness('error');
      await run({ ...task, prompt: 'ignored' });
      throw new Error('Target page, context or browser has been closed');
    };
    const job = await k.submit({ prompt: 'p' });
    await k.settled();
    expect((await k.store.attempts(job.id)).map((a) => [a.agent_id, a.outcome, a.error_code])).toEqual([
      [crashing.id, 'agent_lost', 'AGENT_LOST'],
      [healthy.id, 'succeeded', null],
    ]);
    expect(await k.job(job.id)).toMatchObject({ status: 'succeeded', attempts: 2, agent_id: healthy.id });
  });
});

describe('the prompt’s going, kept in the job’s record before it goes', () => {
  it('a record that cannot keep it stops the send: the attempt ends agent_lost with the store’s words, and the job runs again', async () => {
    const k = await start({ claude: 1 });
    const recordSent = k.store.recordSent.bind(k.store);
    let refusals = 0;
    k.store.recordSent = async (...args) => {
      if (refusals++ === 0) throw new Error('disk I/O error');
      return recordSent(...args);
    };
    const job = await k.submit({ prompt: 'p' });
    await k.settled();
    // The first run stopped at the report (nothing answered); the second answered.
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual([expect.stringContaining('so it was not sent: disk I/O error'), 'answered']);
    expect((await k.store.attempts(job.id)).map((a) => [a.outcome, a.error_code, a.detail, a.sent_turns_before])).toEqual([
      ['agent_lost', 'AGENT_LOST', "The job's record could not keep that its prompt was going, so it was not sent: disk I/O error", null],
      ['succeeded', null, null, 0],
    ]);
    expect(await k.job(job.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    // The store's failure is the service's to report.
    expect(k.roundErrors.splice(0)).toEqual([expect.stringContaining('disk I/O error')]);
  });
});
