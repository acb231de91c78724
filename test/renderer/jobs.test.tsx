// @vitest-environment happy-dom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../renderer/src/api.js';
import { adminState, fakeApi, job, jobDetail, renderPage } from './fixtures.js';

describe('Jobs', () => {
  it('explains how a first job is sent', () => {
    renderPage('#/jobs', adminState());
    expect(screen.getByText('No jobs yet')).toBeTruthy();
    expect(screen.getByText(/\/v1\/completions/, { selector: 'pre' })).toBeTruthy();
  });

  it('lists recent jobs with their errors, and filters them', () => {
    renderPage('#/jobs', adminState(), [
      job({ id: 'job_2', status: 'failed', prompt_excerpt: 'Broken', took_ms: 400, error: { code: 'PROVIDER_ERROR', message: 'The provider showed an error.' } }),
      job({ id: 'job_1', prompt_excerpt: 'Fine', took_ms: 1_250 }),
      job({ id: 'job_3', status: 'queued', prompt_excerpt: 'Back in the queue', agent_name: 'chatgpt-7', attempts: 1, took_ms: null }),
    ]);
    // Re-queued after an attempt, it waits for any ChatGPT agent: none is named.
    expect(screen.getByRole('link', { name: 'Back in the queue' }).closest('tr')!.textContent).toContain('ChatGPT');
    expect(screen.queryByText('chatgpt-7')).toBeNull();
    expect(screen.getByText('The provider showed an error.')).toBeTruthy();
    // How long a job took comes in ms from the server (its timestamps have whole seconds).
    expect(screen.getByText('1.3 s')).toBeTruthy();
    expect(screen.getByText('400 ms')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Failed, cancelled or expired' }));
    expect(screen.queryByText('Fine')).toBeNull();
    expect(screen.getByRole('link', { name: 'Broken' }).getAttribute('href')).toBe('#/jobs/job_2');
  });

  it('lists the model that answered, and the variant asked for, beside each job', () => {
    renderPage('#/jobs', adminState(), [
      job({ id: 'job_1', prompt_excerpt: 'Plain', model_used: 'gpt-5-5' }),
      job({ id: 'job_2', prompt_excerpt: 'Thought through', variant: 'thinking', model_used: 'gpt-5-5-thinking' }),
      job({ id: 'job_3', prompt_excerpt: 'Unnamed' }),
    ]);
    const model = (prompt: string) => {
      const row = screen.getByRole('link', { name: prompt }).closest('tr')!;
      const column = screen.getAllByRole('columnheader').findIndex((h) => h.textContent === 'Model');
      return row.querySelectorAll('td')[column]!.textContent;
    };
    expect(model('Plain')).toBe('gpt-5-5');
    expect(model('Thought through')).toBe('gpt-5-5-thinkingasked: thinking');
    expect(model('Unnamed')).toBe('—');
  });

  it('shows a job whole: prompt, answer, attempts, timings and webhook log; redelivers', async () => {
    const summary = job({ id: 'job_9', prompt_excerpt: 'What is 2+2?' });
    const api = fakeApi(adminState());
    const detail = jobDetail(summary, {
      // Whole-second timestamps, equal here: the duration is the server's run_ms.
      attempts: [{ attempt: 1, agent_id: 'agt_1', provider: 'chatgpt', started_at: summary.created_at, ended_at: summary.created_at, outcome: 'succeeded', error_code: null, run_ms: 730, waited_ms: 520, detail: null }],
      webhook: {
        url: 'https://example.test/hook',
        state: 'failed',
        round: 1,
        next_attempt_at: null,
        attempts: [{ attempt: 1, round: 1, started_at: summary.created_at, duration_ms: 40, status_code: 500, error: null }],
      },
    });
    api.job.mockResolvedValue(detail);
    api.redeliver.mockResolvedValue({ ...detail.webhook!, state: 'pending', round: 2 });
    renderPage('#/jobs/job_9', adminState(), [summary], api);

    expect(await screen.findByText('Hello!')).toBeTruthy();
    expect(screen.getByText('What is 2+2?')).toBeTruthy();
    // The whole as the list says it (took_ms), the attempt's own time, and its wait before.
    expect(fact('Took')).toBe('1.3 s');
    expect(fact('Running time')).toBe('730 ms (1 attempt)');
    expect(fact('Waited in queue')).toBe('520 ms');
    expect(screen.queryByText('Between attempts')).toBeNull();
    expect(screen.getAllByText('730 ms')).toHaveLength(1);
    expect(screen.getByText('HTTP 500')).toBeTruthy();
    expect(screen.getByText('https://example.test/hook')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel job' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Send webhook again' }));
    await waitFor(() => expect(api.redeliver).toHaveBeenCalledWith('job_9'));
    expect(await screen.findByText('pending')).toBeTruthy();
  });

  it("lists the files sent with the prompt: name, type, size and a short SHA-256, never their data", async () => {
    const summary = job({ id: 'job_8', prompt_excerpt: 'Read these' });
    const api = fakeApi(adminState());
    const detail = jobDetail(summary);
    const sha = 'ab'.repeat(32);
    api.job.mockResolvedValue({
      ...detail,
      job: {
        ...detail.job,
        attachments: [
          { filename: 'report – été.pdf', media_type: 'application/pdf', bytes: 2_500_000, sha256: sha },
          { filename: 'note.txt', media_type: 'text/plain', bytes: 812, sha256: 'cd'.repeat(32) },
        ],
      },
    });
    renderPage('#/jobs/job_8', adminState(), [summary], api);
    expect(await screen.findByText('2 files')).toBeTruthy();
    const items = screen.getByRole('list', { name: '2 files' }).querySelectorAll('li');
    expect([...items].map((li) => li.textContent)).toEqual([
      'report – été.pdf application/pdf · 2.5 MB · sha256 abababababab…',
      'note.txt text/plain · 812 bytes · sha256 cdcdcdcdcdcd…',
    ]);
    expect(screen.getByTitle(`SHA-256 ${sha}`)).toBeTruthy();
  });

  it('shows no file list for a job without files', async () => {
    const summary = job({ id: 'job_6', prompt_excerpt: 'Just text' });
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(summary));
    renderPage('#/jobs/job_6', adminState(), [summary], api);
    expect(await screen.findByText('Just text')).toBeTruthy();
    expect(screen.queryByRole('list', { name: /files?$/ })).toBeNull();
  });

  it('shows the variant asked for and the model that answered', async () => {
    const summary = job({ id: 'job_7', prompt_excerpt: 'Think hard' });
    const api = fakeApi(adminState());
    const detail = jobDetail(summary);
    api.job.mockResolvedValue({ ...detail, job: { ...detail.job, variant: 'thinking', model_used: 'gpt-5-thinking' } });
    renderPage('#/jobs/job_7', adminState(), [summary], api);
    expect(await screen.findByText('Hello!')).toBeTruthy();
    expect(fact('Variant asked for')).toBe('thinking');
    expect(fact('Model')).toBe('gpt-5-thinking');
  });

  it('shows no Model for a job whose page did not say', async () => {
    const summary = job({ id: 'job_8', prompt_excerpt: 'Plain' });
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(summary));
    renderPage('#/jobs/job_8', adminState(), [summary], api);
    expect(await screen.findByText('Hello!')).toBeTruthy();
    expect(screen.queryByText('Model')).toBeNull();
    expect(screen.queryByText('Variant asked for')).toBeNull();
  });

  it('says why a queued job waits', async () => {
    const summary = job({ id: 'job_7', status: 'queued', finished_at: undefined });
    const api = fakeApi(adminState());
    const detail = jobDetail(summary, { waiting_because: 'no ChatGPT account is paired (add one in the dashboard or with chatbridge agents add chatgpt)' });
    api.job.mockResolvedValue({ ...detail, job: { ...detail.job, queue_position: 1 } });
    renderPage('#/jobs/job_7', adminState(), [summary], api);
    expect(await screen.findByText('Waiting in the queue (position 1): no ChatGPT account is paired (add one in the dashboard or with chatbridge agents add chatgpt).')).toBeTruthy();
  });

  it('shows a job re-queued after a usage limit as waiting: its true wait, since when, and no agent', async () => {
    const created = new Date(Date.now() - 12 * 60_000 - 900);
    const iso = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
    const summary = job({ id: 'job_8', status: 'queued', created_at: iso(created), finished_at: undefined, took_ms: null, agent_name: 'gemini-1', provider: 'gemini' });
    const api = fakeApi(adminState());
    const until = new Date(Date.now() + 47 * 60_000);
    const detail = jobDetail(summary, {
      attempts: [{ attempt: 1, agent_id: 'agt_1', provider: 'gemini', started_at: iso(created), ended_at: iso(created), outcome: 'failed', error_code: 'PROVIDER_RATE_LIMITED', run_ms: 11, waited_ms: 1, detail: 'scripted rate_limited' }],
      waiting_because: `every Gemini agent is resting after the provider's usage limit, until ${iso(until)}`,
    });
    api.job.mockResolvedValue({ ...detail, job: { ...detail.job, queue_ms: 1, run_ms: 11 } });
    renderPage('#/jobs/job_8', adminState(), [summary], api);

    expect(await screen.findByText(/Waiting in the queue/)).toBeTruthy();
    // Queued: the agent that tried it is in the attempts, not in the head.
    expect(document.querySelector('.detail-head')!.textContent).not.toContain('gemini-1');
    expect(document.querySelector('.detail-head')!.textContent).toContain('Gemini');
    expect(fact('Waited in queue')).toBe('1 ms');
    expect(fact('Back in the queue')).toMatch(/^12 min, since /);
    expect(fact('So far')).toBe('12 min');
    // The server's UTC timestamp reads as the page's own local time.
    const reason = screen.getByText(/every Gemini agent is resting/).textContent!;
    expect(reason).not.toContain(iso(until));
    expect(reason).toContain(until.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
  });

  it('cancels a running job through the API after warning about the waiting caller', async () => {
    const summary = job({ id: 'job_5', status: 'dispatched', finished_at: undefined });
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(summary));
    api.cancel.mockResolvedValue(jobDetail({ ...summary, status: 'cancelled' }));
    renderPage('#/jobs/job_5', adminState(), [summary], api);

    fireEvent.click(await screen.findByRole('button', { name: 'Cancel job' }));
    expect(screen.getByText(/gets status 499/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel it' }));
    await waitFor(() => expect(api.cancel).toHaveBeenCalledWith('job_5'));
    expect(await screen.findByText('cancelled')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel job' })).toBeNull();
  });

  it('deletes a finished job after saying what goes, and leaves for the list without it', async () => {
    const summary = job({ id: 'job_7', prompt_excerpt: 'Old question' });
    const other = job({ id: 'job_8', prompt_excerpt: 'Another' });
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(summary));
    renderPage('#/jobs/job_7', adminState(), [summary, other], api);

    fireEvent.click(await screen.findByRole('button', { name: 'Delete job' }));
    expect(screen.getByText(/removed for good; GET answers 404/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete it' }));
    await waitFor(() => expect(api.deleteJob).toHaveBeenCalledWith('job_7'));
    await waitFor(() => expect(window.location.hash).toBe('#/jobs'));
    expect(await screen.findByRole('link', { name: 'Another' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Old question' })).toBeNull();
  });

  it('offers no Delete while a job is live, and shows a refusal in words', async () => {
    const live = job({ id: 'job_3', status: 'queued', finished_at: undefined });
    const api = fakeApi(adminState());
    api.job.mockResolvedValue(jobDetail(live));
    renderPage('#/jobs/job_3', adminState(), [live], api);
    await screen.findByRole('button', { name: 'Cancel job' });
    expect(screen.queryByRole('button', { name: 'Delete job' })).toBeNull();

    const done = job({ id: 'job_4' });
    api.job.mockResolvedValue(jobDetail(done));
    api.deleteJob.mockRejectedValue(new ApiError(409, 'CONFLICT', 'This job is dispatched: cancel it first, then delete it.'));
    window.location.hash = '#/jobs/job_4';
    fireEvent.click(await screen.findByRole('button', { name: 'Delete job' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete it' }));
    expect((await screen.findByRole('alert')).textContent).toBe('This job is dispatched: cancel it first, then delete it.');
    expect(window.location.hash).toBe('#/jobs/job_4');
  });

  it('says when retention removed the prompt and answer', async () => {
    const summary = job({ id: 'job_6', prompt_excerpt: '' });
    const api = fakeApi(adminState());
    const detail = jobDetail(summary, { prompt: '', content_pruned_at: '2026-11-21T10:00:00Z' });
    api.job.mockResolvedValue({ ...detail, job: { ...detail.job, response: null } });
    renderPage('#/jobs/job_6', adminState(), [summary], api);
    expect(await screen.findAllByText(/after the retention period/)).toHaveLength(2);
    expect(screen.getAllByRole('link', { name: 'Settings' }).some((a) => a.getAttribute('href') === '#/settings')).toBe(true);
  });
});

/** The value of one of the Timings facts. */
function fact(name: string): string | null {
  const term = screen.getAllByText(name, { selector: 'dt' })[0]!;
  return term.nextElementSibling!.textContent;
}
