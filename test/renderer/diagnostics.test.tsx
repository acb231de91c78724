// @vitest-environment happy-dom
/**
 * A failed job's Diagnostics in its page: per failed attempt the failure, the pack, which
 * cue found each role ("none" where none did), the screenshot fetched with the token as an
 * object URL, and downloads; the attempts' own detail in their table.
 */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type DiagnosticBundleView } from '../../renderer/src/api.js';
import { adminState, fakeApi, job, jobDetail, renderPage } from './fixtures.js';

const failedJob = job({ id: 'job_42', status: 'failed', error: { code: 'PROVIDER_UI_CHANGED', message: 'ChatGPT: cannot find the send control.' } });

function bundle(over: Partial<DiagnosticBundleView> = {}): DiagnosticBundleView {
  return {
    name: 'job_42-1',
    attempt: 1,
    agent_id: 'agt_1',
    provider: 'chatgpt',
    at: failedJob.created_at,
    failure: { kind: 'site_changed', message: 'ChatGPT: cannot find the send control (and Enter did not send).' },
    page_url: 'https://chatgpt.com/',
    pack: { version: 5, checked: '2026-10-09', override: '/home/me/.chatbridge/sites/chatgpt.json' },
    cues: { composer: { index: 0, kind: 'structure', css: 'form [contenteditable=true]' }, send: null },
    files: ['screenshot.png', 'page.html', 'failure.json'],
    ...over,
  };
}

const attempt = {
  attempt: 1,
  agent_id: 'agt_1',
  provider: 'chatgpt',
  started_at: failedJob.created_at,
  ended_at: failedJob.created_at,
  outcome: 'failed',
  error_code: 'PROVIDER_UI_CHANGED',
  run_ms: 2_100,
  waited_ms: 40,
  detail: 'ChatGPT: cannot find the send control (and Enter did not send).',
};

let urls: Blob[];
beforeEach(() => {
  urls = [];
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    urls.push(blob as Blob);
    return `blob:test/${urls.length}`;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe('Job diagnostics', () => {
  it('shows the failure, the pack, the cue table and the screenshot, and downloads a file through the API', async () => {
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(failedJob, { attempts: [attempt], diagnostics: [bundle()] }));
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
    const html = new Blob(['<html></html>'], { type: 'text/html' });
    api.diagnosticFile.mockImplementation(async (_b: string, file: string) => (file === 'screenshot.png' ? png : html));
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(`${this.download} ${this.href}`);
    });
    renderPage('#/jobs/job_42', adminState(), [failedJob], api);

    const card = await screen.findByLabelText('Diagnostics of attempt 1');
    // Folded to its one line: a failed job's page holds a bundle per attempt.
    expect(card.tagName).toBe('DETAILS');
    expect((card as HTMLDetailsElement).open).toBe(false);
    expect(card.querySelector('summary')!.textContent).toMatch(/^Attempt 1, .*: site_changed — /);
    expect(within(card).getByText('site_changed')).toBeTruthy();
    expect(within(card).getByText(/Pack v5, checked 2026-10-09, with the override \/home\/me\/.chatbridge\/sites\/chatgpt.json/)).toBeTruthy();
    const rows = within(card).getAllByRole('row').map((r) => r.textContent);
    expect(rows).toContain('composer#1 structure: form [contenteditable=true]');
    expect(rows).toContain('sendnone');
    const img = (await within(card).findByRole('img')) as HTMLImageElement;
    expect(img.src).toBe('blob:test/1');
    expect(urls[0]).toBe(png);
    expect(api.diagnosticFile).toHaveBeenCalledWith('job_42-1', 'screenshot.png');
    // The attempt's own words are in the attempts table too.
    const attempts = screen.getByRole('region', { name: 'Attempts' });
    expect(within(attempts).getByText(attempt.detail)).toBeTruthy();

    fireEvent.click(within(card).getByRole('button', { name: 'Download page.html' }));
    await waitFor(() => expect(clicked).toEqual(['job_42-1-page.html blob:test/2']));
    expect(urls[1]).toBe(html);
  });

  it("shows a usage limit's notice first, and the roles a limit hides as normal, not as red \"none\"", async () => {
    const limited = job({ id: 'job_42', status: 'failed', error: { code: 'JOB_FAILED', message: 'All 3 attempts failed.' } });
    const api = fakeApi(adminState());
    const cues = {
      composer: { index: 0, kind: 'structure', css: 'form [contenteditable=true]' },
      send: null,
      stop: null,
      limitBanner: { index: 1, kind: 'text', css: '[role=dialog]' },
      errorCard: null,
    };
    api.job.mockResolvedValue(
      jobDetail(limited, {
        attempts: [{ ...attempt, error_code: 'PROVIDER_RATE_LIMITED', detail: "You've reached the limit." }],
        diagnostics: [bundle({ failure: { kind: 'rate_limited', message: "You've reached the limit." }, cues, files: ['failure.json'] })],
      }),
    );
    renderPage('#/jobs/job_42', adminState(), [limited], api);
    const card = await screen.findByLabelText('Diagnostics of attempt 1');
    const rows = within(card).getAllByRole('row').slice(1).map((r) => r.textContent);
    expect(rows).toEqual([
      'limitBanner#2 text: [role=dialog]',
      'composer#1 structure: form [contenteditable=true]',
      'sendnot shown (normal with a usage limit)',
      'stopnot shown (normal with a usage limit)',
      'errorCardnot shown (normal with a usage limit)',
    ]);
    expect(card.querySelectorAll('td .problem')).toHaveLength(0);
  });

  it('says when no bundle is kept', async () => {
    const api = fakeApi(adminState());
    api.job.mockResolvedValueOnce(jobDetail(failedJob, { attempts: [attempt], diagnostics: [] }));
    renderPage('#/jobs/job_42', adminState(), [failedJob], api);
    expect(await screen.findByText(/No diagnostic bundle is kept for these attempts/)).toBeTruthy();
  });

  it('shows why a file could not be fetched', async () => {
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(failedJob, { attempts: [attempt], diagnostics: [bundle({ files: ['page.html', 'failure.json'] })] }));
    api.diagnosticFile.mockRejectedValue(new ApiError(404, 'NOT_FOUND', 'No page.html in diagnostic bundle job_42-1; only the newest bundles are kept.'));
    renderPage('#/jobs/job_42', adminState(), [failedJob], api);
    const card = await screen.findByLabelText('Diagnostics of attempt 1');
    // No screenshot was written (the page was gone): no thumbnail is asked for.
    expect(within(card).queryByRole('img')).toBeNull();
    fireEvent.click(within(card).getByRole('button', { name: 'Download page.html' }));
    expect(await within(card).findByText(/only the newest bundles are kept/)).toBeTruthy();
    expect(api.diagnosticFile).toHaveBeenCalledTimes(1);
  });

  it('shows no Diagnostics for a job that did not fail', async () => {
    const api = fakeApi(adminState());
    const ok = job({ id: 'job_43' });
    api.job.mockResolvedValue(jobDetail(ok, { attempts: [{ ...attempt, outcome: 'succeeded', error_code: null, detail: null }] }));
    renderPage('#/jobs/job_43', adminState(), [ok], api);
    expect(await screen.findByText('Hello!')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Diagnostics' })).toBeNull();
  });
});
