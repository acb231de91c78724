import type { NewJob } from '../../main/core/jobs.js';

/** The time the stores' tests start at (their clock is the tests' own). */
export const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);

let serial = 0;
/** A job as the API would make it, for tests and benches that talk to a store directly; ids sort by creation time, as ids.job() makes them. */
export function newJob(overrides: Partial<NewJob> = {}): NewJob {
  const created = overrides.created_at ?? T0;
  return {
    id: `job_${created.toString(36)}_${String(++serial).padStart(6, '0')}`,
    prompt: 'What is 2 + 2?',
    req_provider: null,
    req_agent_id: null,
    conversation_in: null,
    priority: 0,
    timeout_ms: 300_000,
    deadline_at: created + 3_600_000,
    max_attempts: 3,
    callback_url: null,
    metadata: '{"n":1}',
    created_at: created,
    api_key_id: 'key_1',
    account_id: null,
    ...overrides,
  };
}
