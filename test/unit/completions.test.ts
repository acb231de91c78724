/**
 * `Completions.submitAndWait`, the one path of both `wait: true` routes, without HTTP: on the
 * real store in memory, scripted agents and a manual clock, each way a held request ends:
 * answered, failed, the deadline or the hold's end, cancelled while held, and the caller
 * gone (the job goes on).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { completionDefaults, type CompletionRequest } from '../../main/contract/schemas.js';
import type { Submission } from '../../main/contract/completions-port.js';
import { ApiError } from '../../main/core/errors.js';
import type { JobRow, JobView } from '../../main/core/jobs.js';
import { HOUR_MS } from '../../main/queue/hourly-usage.js';
import { queueKit, type QueueKit } from '../support/queue-kit.js';

let kit: QueueKit | undefined;
afterEach(async () => {
  expect(kit?.roundErrors ?? []).toEqual([]);
  await kit?.close();
  kit = undefined;
});

function held(body: Partial<CompletionRequest> & { prompt: string }): Submission {
  return {
    body: { ...completionDefaults(), wait: true, ...body },
    idempotencyKey: undefined,
    path: '/v1/completions',
    rawBody: body,
    apiKeyId: 'key_test',
    accountId: null,
  };
}

/** How a held submission ended: the job it answered with, or the error it threw. */
type Ending = { job: JobView } | { error: ApiError };

/**
 * Submits and holds; resolves with the job once it is stored (submission is asynchronous),
 * and with how the hold ended.
 */
async function hold(k: QueueKit, body: Partial<CompletionRequest> & { prompt: string }, signal?: AbortSignal) {
  const stored = new Promise<JobRow>((resolve) => {
    const stop = k.store.onEvent(({ job, from }) => {
      if (from === null && job.prompt === body.prompt) {
        stop();
        resolve(job);
      }
    });
  });
  const ending: Promise<Ending> = k.completions.submitAndWait(held(body), signal).then(
    (job) => ({ job }),
    (error: ApiError) => ({ error }),
  );
  const job = await stored;
  await k.settled();
  return { job, ending };
}

/** The error a held submission ended with (failing the test if it answered). */
async function errorOf(ending: Promise<Ending>): Promise<ApiError> {
  const end = await ending;
  if (!('error' in end)) throw new Error(`expected an error, the job answered: ${end.job.response}`);
  expect(end.error).toBeInstanceOf(ApiError);
  return end.error;
}

describe('submitAndWait', () => {
  it('answers with the job once its agent has answered', async () => {
    const k = (kit = await queueKit({ chatgpt: 1 }));
    const { ending } = await hold(k, { prompt: 'hello' });
    expect(await ending).toMatchObject({ job: { status: 'succeeded', attempts: 1, response: `echo(${k.agents[0]!.id}#1): hello` } });
  });

  it('throws the failure the contract names, with the attempts, when every allowed attempt failed', async () => {
    const k = (kit = await queueKit({ claude: 1 }));
    const refused = await errorOf((await hold(k, { prompt: 'no [[fail=rejected]]' })).ending);
    expect(refused).toMatchObject({ code: 'PROMPT_REJECTED', message: 'The provider refused the prompt.' });
    expect(refused.details).toMatchObject({ attempts: [{ attempt: 1, outcome: 'failed', error_code: 'PROMPT_REJECTED' }] });

    const erring = await errorOf((await hold(k, { prompt: 'err [[fail=provider_error]]' })).ending);
    expect(erring).toMatchObject({ code: 'PROVIDER_ERROR', message: 'The provider showed an error on all 3 attempts.' });
    expect((erring.details as { attempts: unknown[] }).attempts).toHaveLength(3);
  });

  it('throws JOB_TIMEOUT when the deadline passes: the job expired and its agent was stopped', async () => {
    const k = (kit = await queueKit({ gemini: 1 }));
    const { job, ending } = await hold(k, { prompt: 'slow [[hang]]', deadline_ms: 10_000 });
    k.clock.advance(10_000);
    const error = await errorOf(ending);
    expect(error).toMatchObject({ code: 'JOB_TIMEOUT', details: { job_id: job.id, status: 'expired' } });
    expect(error.message).toBe('The job deadline passed; it will not run again.');
    await k.settled();
    expect(k.agents[0]!.runs[0]!.ended).toBe('expired');
  });

  it('throws JOB_TIMEOUT at the 600 s hold while the job goes on, and says how to fetch it', async () => {
    const k = (kit = await queueKit({ gemini: 1 }));
    const { job, ending } = await hold(k, { prompt: 'slower [[hang]]', deadline_ms: HOUR_MS, timeout_ms: 250_000 });
    let ended = false;
    void ending.then(() => (ended = true));
    // Step by step: each new attempt sets its timer when the clock stands where the last one ended.
    for (const ms of [250_000, 250_000, 99_999]) {
      k.clock.advance(ms);
      await k.settled();
    }
    expect(ended).toBe(false);
    k.clock.advance(1);
    const error = await errorOf(ending);
    expect(error).toMatchObject({ code: 'JOB_TIMEOUT', details: { job_id: job.id, status: 'dispatched' } });
    expect(error.message).toContain(`it continues: fetch it later with GET /v1/completions/${job.id}`);
    // Its attempts went on meanwhile (one timed out every 250 s), and the third goes on after the hold.
    expect(k.agents[0]!.runs.map((r) => r.ended)).toEqual(['timed_out', 'timed_out', undefined]);
  });

  it('throws JOB_CANCELLED when the job is cancelled while held, and the agent is told to stop', async () => {
    const k = (kit = await queueKit({ qwen: 1 }));
    const { job, ending } = await hold(k, { prompt: 'cancel me [[hang]]' });
    await k.completions.cancel(job.id, null);
    expect(await errorOf(ending)).toMatchObject({ code: 'JOB_CANCELLED', details: { job_id: job.id, status: 'cancelled' } });
    await k.settled();
    expect(k.agents[0]!.runs[0]!.ended).toBe('cancelled');
  });

  it('ends the hold when the caller goes away, and leaves the job running', async () => {
    const k = (kit = await queueKit({ deepseek: 1 }));
    const caller = new AbortController();
    const { job, ending } = await hold(k, { prompt: 'gone [[hang]]' }, caller.signal);
    caller.abort();
    const error = await errorOf(ending);
    expect(error).toMatchObject({ code: 'JOB_TIMEOUT', details: { job_id: job.id, status: 'dispatched' } });
    expect(k.events.size()).toBe(0); // the hold stopped listening
    // The job was not the caller's to lose: its agent is still at it.
    expect((await k.store.get(job.id))!.status).toBe('dispatched');
    expect(k.scheduler.isRunningOn(k.agents[0]!.id)).toBe(true);
  });

  it('answers at once when every agent for the job rests past the hold, saying why', async () => {
    const k = (kit = await queueKit({ claude: 1 }));
    const agent = k.agents[0]!;
    k.pool.coolDown(agent.id, k.clock.now() + 2 * HOUR_MS);
    const { job, ending } = await hold(k, { prompt: 'later', provider: 'claude' });
    const error = await errorOf(ending);
    expect(error).toMatchObject({ code: 'JOB_TIMEOUT', details: { job_id: job.id, status: 'queued' } });
    expect(error.message).toMatch(/^The hold ended while the job is queued \(.+\); it continues/);
    expect(agent.runs).toEqual([]);
  });
});
