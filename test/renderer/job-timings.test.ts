/**
 * A job's timings from its attempts as GET /admin/v1/jobs/{id} serves them: whole-second
 * timestamps, millisecond `run_ms` and `waited_ms`, and the job's `took_ms`.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../renderer/src/api.js';
import { jobTimings } from '../../renderer/src/job-timings.js';

type Attempt = JobDetail['attempts'][number];

function detail(status: JobDetail['job']['status'], attempts: Attempt[], took_ms: number | null, created_at = '2026-11-26T10:00:00Z') {
  return {
    job: {
      id: 'job_1',
      status,
      response: null,
      provider: 'claude',
      agent_id: attempts.at(-1)?.agent_id ?? null,
      agent_name: attempts.length ? 'claude-1' : null,
      variant: null,
      model_used: null,
      conversation_ref: null,
      attempts: attempts.length,
      // The contract's figures: the wait before the first dispatch only, and the attempts' sum.
      queue_ms: attempts[0]?.waited_ms ?? null,
      run_ms: attempts.reduce((sum, a) => sum + (a.run_ms ?? 0), 0),
      created_at,
      error: null,
      metadata: {},
      attachments: [],
    },
    attempts,
    took_ms,
  } satisfies Pick<JobDetail, 'job' | 'attempts' | 'took_ms'>;
}

function attempt(n: number, started_at: string, ended_at: string | null, run_ms: number | null, waited_ms: number, outcome: string | null, error_code: string | null = null): Attempt {
  return { attempt: n, agent_id: `agt_${n}`, provider: 'claude', started_at, ended_at, outcome, error_code, run_ms, waited_ms, detail: error_code ? 'The provider showed an error.' : null };
}

const at = (iso: string) => Date.parse(iso);

describe('jobTimings', () => {
  it("splits a three-attempt job's 26 s into the first wait, 1.1 s of running and the waits between, adding up to the list's took_ms", () => {
    // Sent at 10:00:00.000; each retry waited out the agent's pause between jobs.
    const job = detail(
      'succeeded',
      [
        attempt(1, '2026-11-26T10:00:00Z', '2026-11-26T10:00:00Z', 400, 5, 'failed', 'PROVIDER_ERROR'),
        attempt(2, '2026-11-26T10:00:12Z', '2026-11-26T10:00:12Z', 300, 12_000, 'failed', 'PROVIDER_ERROR'),
        attempt(3, '2026-11-26T10:00:25Z', '2026-11-26T10:00:26Z', 400, 13_000, 'succeeded'),
      ],
      26_105,
    );
    const t = jobTimings(job, at('2026-11-26T11:00:00Z'));
    expect(t).toEqual({ firstWaitMs: 5, runMs: 1_100, betweenMs: 25_000, totalMs: 26_105, waitingAgainSince: null });
    expect(t.firstWaitMs + t.runMs + t.betweenMs).toBe(t.totalMs);
  });

  it('counts the wait of a job re-queued after a usage limit to now, and since when', () => {
    const job = detail('queued', [attempt(1, '2026-11-26T10:00:00Z', '2026-11-26T10:00:00Z', 800, 1, 'failed', 'PROVIDER_RATE_LIMITED')], null);
    const t = jobTimings(job, at('2026-11-26T10:12:00Z'));
    expect(t.firstWaitMs).toBe(1);
    expect(t.runMs).toBe(800);
    expect(t.betweenMs).toBe(12 * 60_000);
    expect(t.waitingAgainSince).toBe('2026-11-26T10:00:00Z');
    expect(t.totalMs).toBe(12 * 60_000);
  });

  it('counts a job that never started as waiting the whole time: to now, or to its end', () => {
    expect(jobTimings(detail('queued', [], null), at('2026-11-26T10:03:00Z'))).toEqual({
      firstWaitMs: 180_000,
      runMs: 0,
      betweenMs: 0,
      totalMs: 180_000,
      waitingAgainSince: null,
    });
    expect(jobTimings(detail('expired', [], 600_250), at('2026-11-26T11:00:00Z')).firstWaitMs).toBe(600_250);
  });

  it('runs a running attempt to now, with nothing after it', () => {
    const job = detail('dispatched', [attempt(1, '2026-11-26T10:00:02Z', null, null, 2_100, null)], null);
    expect(jobTimings(job, at('2026-11-26T10:00:09Z'))).toEqual({ firstWaitMs: 2_100, runMs: 7_000, betweenMs: 0, totalMs: 9_000, waitingAgainSince: null });
  });

  it('counts the wait of a job cancelled while back in the queue as time after its attempt', () => {
    const job = detail('cancelled', [attempt(1, '2026-11-26T10:00:00Z', '2026-11-26T10:00:01Z', 1_200, 3, 'failed', 'PROVIDER_RATE_LIMITED')], 95_203);
    const t = jobTimings(job, at('2026-11-26T11:00:00Z'));
    expect(t).toEqual({ firstWaitMs: 3, runMs: 1_200, betweenMs: 94_000, totalMs: 95_203, waitingAgainSince: null });
  });
});
