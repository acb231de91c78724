/**
 * One client script against both profiles: what it sees differs only where api.md marks
 * (F) and (H), and every difference is listed here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import type { ProfileName } from '../../main/core/profile-name.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const stampKind = (v: unknown) => (typeof v !== 'string' ? v : SECONDS.test(v) ? 'seconds' : MILLIS.test(v) ? 'millis' : v);

/** What a client sees, step by step, reduced to what the contract fixes (no ids or times). */
async function clientScript(profile: ProfileName): Promise<Record<string, unknown>> {
  t = await startTestService({ listen: false, profile, agents: { claude: 1 } });
  const api = t.api.bind(t);
  const seen: Record<string, unknown> = {};
  const done = await api('POST', '/v1/completions', { body: { prompt: 'hello', provider: 'claude' } });
  seen['wait:true status'] = done.status;
  seen['job fields'] = Object.keys(done.body).sort().join(',');
  seen['job provider'] = done.body.provider;
  seen['job agent_name'] = done.body.agent_name === null ? null : 'the agent name';
  seen['job created_at'] = stampKind(done.body.created_at);

  const anyProvider = await api('POST', '/v1/completions', { body: { prompt: 'anyone' } });
  seen['provider of a job that named none'] = anyProvider.body.provider;

  const accepted = await api('POST', '/v1/completions', { body: { prompt: 'later', provider: 'qwen', wait: false, callback_url: 'https://127.0.0.1:9/h' } });
  seen['202 fields'] = Object.keys(accepted.body).sort().join(',');
  await api('POST', '/v1/completions', { body: { prompt: 'after it', provider: 'qwen', wait: false, callback_url: 'https://127.0.0.1:9/h', priority: -5 } });
  seen['queue_position'] = (await api('GET', `/v1/completions/${accepted.body.id}`)).body.queue_position;

  const refused = await api('POST', '/v1/completions', { body: { prompt: 'now', provider: 'qwen', wait: false } });
  seen['cannot start: status'] = refused.status;
  seen['cannot start: job kept'] = 'job_id' in (refused.body.error.details ?? {});

  seen['priority 50'] = (await api('POST', '/v1/completions', { body: { prompt: 'p', priority: 50, wait: false, callback_url: 'https://127.0.0.1:9/h' } })).status;
  const failed = await api('POST', '/v1/completions', { body: { prompt: '[[fail=rejected]] p', provider: 'claude' } });
  seen['502 code'] = failed.body.error.code;
  seen['502 details.attempts'] = Array.isArray(failed.body.error.details.attempts) ? 'per-attempt records' : failed.body.error.details.attempts;
  seen['502 details.job_id'] = typeof failed.body.error.details.job_id;
  seen['cancel'] = (await api('DELETE', `/v1/completions/${accepted.body.id}`)).body.status;
  seen['status members'] = Object.keys((await api('GET', '/v1/status')).body).sort().join(',');
  seen['unknown job'] = (await api('GET', '/v1/completions/job_nope')).status;
  seen['chat completion'] = (await api('POST', '/v1/chat/completions', { body: { model: 'service/claude', messages: [{ role: 'user', content: 'hi' }] } })).body.object;
  await t.stop();
  t = undefined;
  return seen;
}

describe('the same client script against both profiles', () => {
  it('sees only the documented differences', async () => {
    const personal = await clientScript('personal');
    const hosted = await clientScript('hosted');
    const differences = Object.fromEntries(
      Object.keys(personal)
        .filter((k) => JSON.stringify(personal[k]) !== JSON.stringify(hosted[k]))
        .map((k) => [k, { personal: personal[k], hosted: hosted[k] }]),
    );
    const jobFields = 'agent_id,agent_name,attachments,attempts,conversation_ref,created_at,error,finished_at,id,metadata,model_used,provider,queue_ms,response,run_ms,status,variant';
    expect(differences).toEqual({
      // Job object: (H) content_pruned_at always present; timestamps with milliseconds; agent_name null; provider as requested.
      'job fields': { personal: jobFields, hosted: `${jobFields.replace('conversation_ref,', 'content_pruned_at,conversation_ref,')}` },
      'job agent_name': { personal: 'the agent name', hosted: null },
      'job created_at': { personal: 'seconds', hosted: 'millis' },
      'provider of a job that named none': { personal: 'claude', hosted: null },
      // 202: (F) id, status, created_at; (H) the whole job.
      '202 fields': { personal: 'created_at,id,status', hosted: 'agent_id,agent_name,attachments,attempts,content_pruned_at,conversation_ref,created_at,error,id,metadata,model_used,provider,queue_ms,response,run_ms,status,variant' },
      // queue_position: (F) the place in dispatch order; (H) the caller's queued jobs.
      queue_position: { personal: 1, hosted: 2 },
      // (H) the refused job stays queued, named in details.job_id.
      'cannot start: job kept': { personal: false, hosted: true },
      // priority: (F) -10 to 100; (H) -10 to 10.
      'priority 50': { personal: 202, hosted: 400 },
      // details.attempts: (F) per-attempt records; (H) the number.
      '502 details.attempts': { personal: 'per-attempt records', hosted: 1 },
      // /v1/status: (H) per-provider figures and the caller's queue only.
      'status members': { personal: 'agents,devices,global,providers,queue,rotation', hosted: 'providers,queue' },
    });
  });
});
