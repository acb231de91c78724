/**
 * Callers that wait: a `?wait=true` read wakes as the job ends; a waiting submission whose
 * client hangs up leaves its job to finish (decisions.md, "Jobs"); a refusal reaches the
 * waiting caller as 502 PROMPT_REJECTED and is not retried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { jobIdWhere } from '../support/store.js';
import { until } from '../support/until.js';

let t: TestService;
afterEach(async () => t?.stop());
const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

describe('long polls', () => {
  it('wakes a waiter within milliseconds of the job finishing, and a disconnect leaves the job alone', async () => {
    // A real connection: its client going away is the subject.
    t = await startTestService({ agents: { chatgpt: 1 } });
    const sub = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[ms=200]]', ...queued } });
    const r = await t.api('GET', `/v1/completions/${sub.body.id}?wait=true`);
    expect(r.body.status).toBe('succeeded');
    // Measured from the finish, not the request: a slow machine may take long to get there.
    // (The stored finish, in ms: the API's has whole seconds.)
    const woken = Date.now() - (await t.driver.job(sub.body.id))!.finished_at!;
    expect(woken).toBeGreaterThanOrEqual(0);
    expect(woken).toBeLessThan(1_000);

    const controller = new AbortController();
    const gone = fetch(`${t.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'q [[ms=300]]' }),
      signal: controller.signal,
    }).catch((e: Error) => e.name);
    await until(() => t.agents[0]!.runs.length === 2);
    controller.abort();
    expect(await gone).toBe('AbortError');
    await until(() => t.driver.waiting() === 0);
    await until(() => t.agents[0]!.runs[1]!.ended === 'answered');
    const id = (await jobIdWhere(t.driver, (prompt) => prompt.startsWith('q')))!;
    expect((await t.driver.job(id))!.status).toBe('succeeded');
  });

  it('reports a refusal as 502 PROMPT_REJECTED with the attempt record, and does not retry it', async () => {
    t = await startTestService({ listen: false, agents: { claude: 2 } });
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'p [[fail=rejected]]' } });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('PROMPT_REJECTED');
    expect(r.body.error.details.attempts).toHaveLength(1);
    expect(r.body.error.details.job_id).toMatch(/^job_/);
    const job = await t.api('GET', `/v1/completions/${r.body.error.details.job_id}`);
    expect(job.body).toMatchObject({ status: 'failed', response: null, error: { code: 'PROMPT_REJECTED' } });
  });
});
