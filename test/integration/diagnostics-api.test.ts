/**
 * Diagnostic bundles through the dashboard's API: a failed job's detail lists its bundles
 * (and each attempt's own words, which /v1 never shows); one file downloads with its type
 * as an attachment; names are checked strictly and nothing outside the folder is served.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DiagnosticManifest } from '../../main/core/diagnostics.js';
import { startTestService, type TestService } from '../support/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { DAY_MS } from '../../main/core/timestamps.js';

let t: TestService;
afterEach(async () => t?.stop());

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** A bundle as the agent runtime writes it. */
function writeBundle(dataDir: string, jobId: string, attempt: number, files: Record<string, string | Buffer> = {}): DiagnosticManifest {
  const dir = join(dataDir, 'diagnostics', `${jobId}-${attempt}`);
  mkdirSync(dir, { recursive: true });
  const manifest: DiagnosticManifest = {
    job_id: jobId,
    attempt,
    agent_id: 'agt_x',
    provider: 'chatgpt',
    at: Date.parse('2026-11-02T10:00:00Z'),
    failure: { kind: 'site_changed', message: 'ChatGPT: cannot find the send control.' },
    page_url: 'https://chatgpt.com/',
    pack: { version: 5, checked: '2026-10-09', override: null },
    cues: { composer: { index: 1, kind: 'aria', css: '[role=textbox]' }, send: null },
    files: ['screenshot.png', 'page.html', 'failure.json'],
  };
  writeFileSync(join(dir, 'screenshot.png'), files['screenshot.png'] ?? PNG);
  writeFileSync(join(dir, 'page.html'), files['page.html'] ?? '<html><body>blanked</body></html>');
  writeFileSync(join(dir, 'failure.json'), JSON.stringify(manifest));
  return manifest;
}

async function failedJob(): Promise<string> {
  const res = await t.api('POST', '/v1/completions', { body: { prompt: '[[fail=site_changed]] hello', provider: 'chatgpt' } });
  expect(res.status).toBe(502);
  expect(res.body.error.code).toBe('PROVIDER_UI_CHANGED');
  // The contract's per-attempt record stays as it is: the agent's words are the dashboard's.
  expect(Object.keys(res.body.error.details.attempts[0]).sort()).toEqual(['agent_id', 'attempt', 'ended_at', 'error_code', 'outcome', 'provider', 'started_at']);
  return res.body.error.details.job_id;
}

describe('diagnostic bundles in the admin API', () => {
  it("lists a failed job's bundles and its attempts' detail, never in /v1", async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const id = await failedJob();
    writeBundle(t.dataDir, id, 1);
    writeBundle(t.dataDir, 'job_someoneelse', 1);

    const detail = (await t.api('GET', `/admin/v1/jobs/${id}`, { key: admin })).body;
    expect(detail.attempts).toEqual([expect.objectContaining({ attempt: 1, error_code: 'PROVIDER_UI_CHANGED', detail: 'scripted site_changed' })]);
    expect(detail.diagnostics).toEqual([
      {
        name: `${id}-1`,
        attempt: 1,
        agent_id: 'agt_x',
        provider: 'chatgpt',
        at: '2026-11-02T10:00:00Z',
        failure: { kind: 'site_changed', message: 'ChatGPT: cannot find the send control.' },
        page_url: 'https://chatgpt.com/',
        pack: { version: 5, checked: '2026-10-09', override: null },
        cues: { composer: { index: 1, kind: 'aria', css: '[role=textbox]' }, send: null },
        files: ['screenshot.png', 'page.html', 'failure.json'],
      },
    ]);

    const pub = (await t.api('GET', `/v1/completions/${id}`)).body;
    expect(pub).not.toHaveProperty('diagnostics');
    expect(pub).not.toHaveProperty('detail');
  });

  it('downloads a file with its type as an attachment, to the admin token only', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const id = await failedJob();
    writeBundle(t.dataDir, id, 1);
    const get = (path: string, key: string | null = admin) =>
      fetch(t.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });

    const png = await get(`/admin/v1/diagnostics/${id}-1/screenshot.png`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toBe(`attachment; filename="${id}-1-screenshot.png"`);
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);

    const html = await get(`/admin/v1/diagnostics/${id}-1/page.html`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(await html.text()).toBe('<html><body>blanked</body></html>');
    const manifest = await get(`/admin/v1/diagnostics/${id}-1/failure.json`);
    expect(((await manifest.json()) as DiagnosticManifest).job_id).toBe(id);

    expect((await get(`/admin/v1/diagnostics/${id}-1/screenshot.png`, null)).status).toBe(401);
    expect((await get(`/admin/v1/diagnostics/${id}-1/screenshot.png`, t.key)).status).toBe(403);
  });

  it('refuses names that are not a bundle or one of its files, and never leaves the folder', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const id = await failedJob();
    writeBundle(t.dataDir, id, 1);
    writeFileSync(join(t.dataDir, 'secret.txt'), 'not for the dashboard');
    // A bundle folder that is a link elsewhere (someone else's doing) is not followed.
    symlinkSync(t.dataDir, join(t.dataDir, 'diagnostics', 'job_link-1'));
    const get = async (path: string) => {
      const res = await fetch(t.url + path, { headers: { authorization: `Bearer ${admin}` } });
      const text = await res.text();
      expect(text).not.toContain('not for the dashboard');
      return { status: res.status, code: text.startsWith('{') ? (JSON.parse(text) as { error?: { code: string } }).error?.code : undefined };
    };

    expect(await get(`/admin/v1/diagnostics/${id}-2/screenshot.png`)).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await get(`/admin/v1/diagnostics/job_nothing-1/page.html`)).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await get(`/admin/v1/diagnostics/${id}-1/secret.txt`)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    for (const inherited of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(await get(`/admin/v1/diagnostics/${id}-1/${inherited}`), inherited).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    }
    expect(await get(`/admin/v1/diagnostics/${id}-1/..%2F..%2Fsecret.txt`)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(await get(`/admin/v1/diagnostics/..%2F${id}-1/page.html`)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(await get(`/admin/v1/diagnostics/..%2F..%2Fsecret.txt/page.html`)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(await get(`/admin/v1/diagnostics/job_link-1/failure.json`)).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect((await get(`/admin/v1/diagnostics/${id}-1/../../secret.txt`)).status).toBe(404);
    expect((await get(`/admin/v1/diagnostics/${id}-1`)).status).toBe(404);
  });
});

describe('diagnostic bundles go with their job', () => {
  const bundle = (id: string, attempt = 1) => join(t.dataDir, 'diagnostics', `${id}-${attempt}`);

  it('are deleted with the job', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const [id, other] = [await failedJob(), await failedJob()];
    writeBundle(t.dataDir, id, 1);
    writeBundle(t.dataDir, id, 2);
    writeBundle(t.dataDir, other, 1);
    expect((await t.api('DELETE', `/admin/v1/jobs/${id}`, { key: admin })).status).toBe(204);
    expect([existsSync(bundle(id, 1)), existsSync(bundle(id, 2)), existsSync(bundle(other))]).toEqual([false, false, true]);
  });

  it('are deleted by retention once their job is gone (jobs purge) or its text was removed', async () => {
    const clock = new ManualClock(Date.now());
    t = await startTestService({ agents: { chatgpt: 1 }, clock });
    const old = await failedJob();
    clock.advance(2 * DAY_MS);
    const fresh = await failedJob();
    for (const id of [old, fresh, 'job_purgedmeanwhile']) writeBundle(t.dataDir, id, 1);
    await t.service.retention.idle(); // the sweep at start
    const swept = new Promise<void>((resolve) => t.service.retention.onSweep(() => resolve()));
    await t.driver.settings.setRetentionDays(1);
    t.service.retention.wake();
    await swept;
    expect([existsSync(bundle(old)), existsSync(bundle('job_purgedmeanwhile')), existsSync(bundle(fresh))]).toEqual([false, false, true]);
  });
});

