/**
 * GET /metrics after known jobs on scripted agents, read with a strict Prometheus text
 * parser: the counters say exactly what happened, gauges what is now, label values are
 * never ids, prompts or URLs, and each service counts in its own registry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue, type Family } from '../support/prom-text.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

const HOOK = 'https://127.0.0.1:9/hook';
const running: TestService[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) await t.stop();
});

async function scrape(t: TestService, key?: string): Promise<Map<string, Family>> {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${key ?? await t.createKey(['metrics:read'])}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

describe('GET /metrics', () => {
  it('takes the admin token or a metrics:read key, nothing else', async () => {
    const t = await startTestService();
    running.push(t);
    const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    expect((await t.api('GET', '/metrics', { key: null })).status).toBe(401);
    expect((await t.api('GET', '/metrics')).status).toBe(403);
    await scrape(t, token);
    await scrape(t);
  });

  it("is the operator's in the hosted profile: the admin token or a key made without an account, never a tenant's key", async () => {
    const t = await startTestService({ profile: 'hosted' });
    running.push(t);
    const tenant = await t.createKey(['metrics:read']);
    const refused = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${tenant}` } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'FORBIDDEN',
      message: "This route is the operator's: it takes the admin token or a key made without an account, not an account's key.",
    });
    await scrape(t, readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim());
    const operator = (await t.driver.keys.create({ name: 'prometheus', scopes: ['metrics:read'], expiresAt: null, accountId: null })).secret;
    await scrape(t, operator);
  });

  it('counts known jobs by provider, status, attempt outcome, webhook result and route', async () => {
    const t = await startTestService({ agents: { chatgpt: 2, claude: 1 } });
    running.push(t);
    for (let i = 0; i < 3; i++) {
      expect((await t.api('POST', '/v1/completions', { body: { prompt: `plain ${i}`, provider: 'chatgpt' } })).status).toBe(200);
    }
    const retried = await t.api('POST', '/v1/completions', { body: { prompt: 'retried [[fail-once=provider_error]]', provider: 'chatgpt' } });
    expect(retried.body.attempts).toBe(2);
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'no [[fail=rejected]]', provider: 'claude' } })).status).toBe(502);
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'any provider' } })).status).toBe(200);
    const hang = await t.api('POST', '/v1/completions', { body: { prompt: 'forever [[hang]]', provider: 'claude', wait: false, callback_url: HOOK } });
    expect(hang.status).toBe(202);
    await until(async () => (await t.api('GET', `/v1/completions/${hang.body.id}`)).body.status === 'dispatched', 10_000, 'the job running');
    expect((await t.api('DELETE', `/v1/completions/${hang.body.id}`)).body.status).toBe('cancelled');
    expect((await t.api('GET', '/nowhere')).status).toBe(404);
    // The cancelled job's webhook goes to a closed port: one attempt without an answer.
    await until(async () => sampleValue(await scrape(t), 'chatbridge_webhook_deliveries_total', { result: 'no_answer' }) !== undefined, 10_000, 'the no_answer count');

    const m = await scrape(t);
    const v = (name: string, labels: Record<string, string> = {}) => sampleValue(m, name, labels);
    expect(m.get('chatbridge_jobs_accepted_total')!.type).toBe('counter');
    expect(v('chatbridge_jobs_accepted_total', { provider: 'chatgpt' })).toBe(4);
    expect(v('chatbridge_jobs_accepted_total', { provider: 'claude' })).toBe(2);
    expect(v('chatbridge_jobs_accepted_total', { provider: 'any' })).toBe(1);

    const anyRan = (await t.driver.recent(10)).find((j) => j.prompt === 'any provider')!.provider!;
    expect(v('chatbridge_jobs_finished_total', { provider: 'chatgpt', status: 'succeeded' })).toBe(4 + (anyRan === 'chatgpt' ? 1 : 0));
    expect(v('chatbridge_jobs_finished_total', { provider: 'claude', status: 'failed' })).toBe(1);
    expect(v('chatbridge_jobs_finished_total', { provider: 'claude', status: 'cancelled' })).toBe(1);

    expect(v('chatbridge_attempts_total', { provider: 'chatgpt', outcome: 'failed', error_code: 'PROVIDER_ERROR' })).toBe(1);
    expect(v('chatbridge_attempts_total', { provider: 'chatgpt', outcome: 'succeeded', error_code: '' })).toBe(4 + (anyRan === 'chatgpt' ? 1 : 0));
    expect(v('chatbridge_attempts_total', { provider: 'claude', outcome: 'failed', error_code: 'PROMPT_REJECTED' })).toBe(1);
    expect(v('chatbridge_attempts_total', { provider: 'claude', outcome: 'cancelled', error_code: 'CANCELLED' })).toBe(1);

    expect(m.get('chatbridge_job_queue_seconds')!.type).toBe('histogram');
    expect(v('chatbridge_job_queue_seconds_count', { provider: 'chatgpt' })).toBe(4 + (anyRan === 'chatgpt' ? 1 : 0));
    expect(v('chatbridge_job_run_seconds_count', { provider: 'claude' })).toBe(2);
    expect(v('chatbridge_job_run_seconds_bucket', { provider: 'claude', le: '+Inf' })).toBe(2);

    expect(v('chatbridge_http_requests_total', { method: 'POST', route: '/v1/completions', status: '200' })).toBe(5);
    expect(v('chatbridge_http_requests_total', { method: 'POST', route: '/v1/completions', status: '502' })).toBe(1);
    expect(v('chatbridge_http_requests_total', { method: 'DELETE', route: '/v1/completions/:id', status: '200' })).toBe(1);
    expect(v('chatbridge_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);

    expect(v('chatbridge_queue_depth')).toBe(0);
    expect(v('chatbridge_queue_oldest_age_seconds')).toBe(0);
    expect(v('chatbridge_agents', { provider: 'chatgpt', state: 'idle' })).toBe(2);
    expect(v('chatbridge_agents', { provider: 'claude', state: 'idle' })).toBe(1);
    expect(v('chatbridge_agents', { provider: 'gemini', state: 'idle' })).toBe(0);
    // Attempts started this hour: 3 + 2 (the retry) + the provider-less job's, and 2 on claude.
    expect(v('chatbridge_hourly_usage', { provider: 'chatgpt' })).toBe(5 + (anyRan === 'chatgpt' ? 1 : 0));
    expect(v('chatbridge_hourly_usage', { provider: 'all' })).toBe(8);
    expect(v('chatbridge_hourly_cap', { provider: 'all' })).toBeUndefined();

    // Names by convention; label values never carry ids, prompts or URLs.
    for (const [name, family] of m) {
      expect(name).toMatch(/^chatbridge_/);
      if (family.type === 'counter') expect(name).toMatch(/_total$/);
      for (const s of family.samples) {
        for (const value of Object.values(s.labels)) {
          expect(value).not.toMatch(/job_|key_|agt_|plain|forever|https?:|127\.0\.0\.1/);
        }
      }
    }
  });

  it('shows caps and the queue as they are, and counts per service (two in one process)', async () => {
    const a = await startTestService();
    const b = await startTestService();
    running.push(a, b);
    await a.driver.settings.setGlobalCap(10);
    await a.driver.settings.setProviderCap('claude', 3);
    expect((await a.api('POST', '/v1/completions', { body: { prompt: 'waits', wait: false, callback_url: HOOK } })).status).toBe(202);
    const ma = await scrape(a);
    expect(sampleValue(ma, 'chatbridge_hourly_cap', { provider: 'all' })).toBe(10);
    expect(sampleValue(ma, 'chatbridge_hourly_cap', { provider: 'claude' })).toBe(3);
    expect(sampleValue(ma, 'chatbridge_queue_depth')).toBe(1);
    expect(sampleValue(ma, 'chatbridge_jobs_accepted_total', { provider: 'any' })).toBe(1);
    const mb = await scrape(b);
    expect(sampleValue(mb, 'chatbridge_queue_depth')).toBe(0);
    expect(sampleValue(mb, 'chatbridge_jobs_accepted_total', { provider: 'any' })).toBeUndefined();
  });
});

describe('the strict text parser', () => {
  it('refuses what a scraper could misread', () => {
    const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n';
    expect(sampleValue(parsePrometheusText(ok), 'a_total', { x: '1' })).toBe(2);
    for (const bad of [
      'a_total 1\n', // no TYPE
      '# TYPE a_total counter\na_total{x="1} 2\n', // unterminated
      '# TYPE a_total counter\na_total{x="1"} two\n', // not a number
      '# TYPE a_total counter\na_total 1\na_total 2\n', // the same series twice
      '# TYPE a_total counter\na_total{1x="1"} 2\n', // bad label name
      '# TYPE a_total counter\na_total 1', // no final newline
    ]) {
      expect(() => parsePrometheusText(bad), bad).toThrow();
    }
  });
});
