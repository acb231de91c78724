// @vitest-environment happy-dom
/**
 * The log view on the Settings page: what it loads, live entries at the bottom, the level
 * filter, following new lines unless the person scrolled up, and its empty and error states.
 */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, type LogEntry } from '../../renderer/src/api.js';
import { logTime } from '../../renderer/src/components/LogView.js';
import { LOG_LIMIT, useDashboard } from '../../renderer/src/store.js';
import { adminState, fakeApi, renderPage } from './fixtures.js';

const AT = '2026-11-21T10:00:05Z';
const entry = (seq: number, over: Partial<LogEntry> = {}): LogEntry => ({
  seq,
  at: AT,
  level: 'info',
  source: 'service',
  message: `line ${seq}`,
  ...over,
});

const items = () => within(screen.getByRole('log', { name: /ChatBridge log/ })).getAllByRole('listitem');
const lines = () => items().map((li) => li.textContent);

/** The Settings page with `logs()` answering `entries` (or the promise given). */
function show(entries: LogEntry[] | Promise<LogEntry[]>) {
  const admin = adminState();
  const api = fakeApi(admin);
  api.logs.mockImplementation(() => Promise.resolve(entries));
  renderPage('#/settings', admin, [], api);
  return api;
}

describe('LogView', () => {
  it('loads the recent entries, oldest first with local times, and adds live ones at the bottom', async () => {
    const api = show([entry(1, { message: 'ChatBridge 0.1.0 started on http://127.0.0.1:4555' }), entry(2, { level: 'warn', source: 'agent', message: 'Claude 1: idle → needs_login' })]);
    await screen.findByRole('log');
    expect(api.logs).toHaveBeenCalledWith(LOG_LIMIT);
    expect(lines()).toEqual([
      `${logTime(AT)}infoserviceChatBridge 0.1.0 started on http://127.0.0.1:4555`,
      `${logTime(AT)}warningagentClaude 1: idle → needs_login`,
    ]);
    expect(items()[0]!.querySelector('time')!.getAttribute('datetime')).toBe(AT);

    act(() => useDashboard.getState().addLog(entry(3, { level: 'error', source: 'webhook', message: 'Webhook for job job_1 failed' })));
    expect(lines().at(-1)).toBe(`${logTime(AT)}errorwebhookWebhook for job job_1 failed`);
    expect(items().at(-1)!.className).toContain('log-error');
  });

  it('shows only warnings and errors when asked, and says so when there are none', async () => {
    show([entry(1), entry(2, { level: 'warn', message: 'Job job_9 failed after 1 try: PROMPT_REJECTED' }), entry(3, { level: 'error', message: 'gave up' })]);
    await screen.findByRole('log');
    const all = screen.getByRole('button', { name: 'All' });
    const problems = screen.getByRole('button', { name: 'Warnings and errors' });
    expect(all.getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(problems);
    expect(problems.getAttribute('aria-pressed')).toBe('true');
    expect(all.getAttribute('aria-pressed')).toBe('false');
    expect(lines().map((l) => l!.replace(logTime(AT), ''))).toEqual(['warningserviceJob job_9 failed after 1 try: PROMPT_REJECTED', 'errorservicegave up']);
    fireEvent.click(all);
    expect(lines()).toHaveLength(3);

    act(() => useDashboard.getState().setLogs([entry(1)], useDashboard.getState().logsReceived));
    fireEvent.click(problems);
    expect(screen.queryByRole('log')).toBeNull();
    expect(screen.getByText('No warnings or errors among the recent entries.')).toBeTruthy();
  });

  it('says in plain words that nothing was logged yet', async () => {
    show([]);
    expect(await screen.findByText('Nothing logged yet')).toBeTruthy();
    expect(screen.getByText(/Prompts and answers are never logged/)).toBeTruthy();
    expect(screen.queryByRole('log')).toBeNull();
  });

  it('keeps entries that arrive while it loads, without repeating those the load already had', async () => {
    let answer!: (entries: LogEntry[]) => void;
    show(new Promise<LogEntry[]>((resolve) => (answer = resolve)));
    expect(screen.getByText('Reading the log…')).toBeTruthy();
    act(() => {
      useDashboard.getState().addLog(entry(3));
      useDashboard.getState().addLog(entry(4));
    });
    await act(async () => answer([entry(1), entry(2), entry(3)]));
    expect(lines().map((l) => l!.replace(logTime(AT), ''))).toEqual(['infoserviceline 1', 'infoserviceline 2', 'infoserviceline 3', 'infoserviceline 4']);
  });

  it('loads again after the stream reconnects, as the service may have restarted', async () => {
    const api = show([entry(7), entry(8)]);
    await screen.findByRole('log');
    api.logs.mockResolvedValue([entry(1, { message: 'started again' })]);
    act(() => useDashboard.getState().setConnection('reconnecting', 1_000));
    act(() => useDashboard.getState().setConnection('live'));
    await waitFor(() => expect(lines().map((l) => l!.replace(logTime(AT), ''))).toEqual(['infoservicestarted again']));
    expect(api.logs).toHaveBeenCalledTimes(2);
  });

  it('follows new lines, stops when the person scrolls up, and jumps back on request', async () => {
    show([entry(1), entry(2)]);
    const box = await screen.findByRole('log');
    expect(box.tabIndex).toBe(0);
    let height = 1_000;
    Object.defineProperty(box, 'scrollHeight', { configurable: true, get: () => height });
    Object.defineProperty(box, 'clientHeight', { configurable: true, get: () => 200 });
    let top = 0;
    Object.defineProperty(box, 'scrollTop', { configurable: true, get: () => top, set: (v: number) => (top = v) });

    act(() => useDashboard.getState().addLog(entry(3)));
    expect(top).toBe(1_000);

    top = 300;
    fireEvent.scroll(box);
    height = 1_100;
    act(() => useDashboard.getState().addLog(entry(4)));
    expect(top).toBe(300);

    fireEvent.click(screen.getByRole('button', { name: 'Jump to the newest' }));
    expect(top).toBe(1_100);
    fireEvent.scroll(box);
    expect(screen.queryByRole('button', { name: 'Jump to the newest' })).toBeNull();
  });

  it('shows why the log could not be read', async () => {
    const admin = adminState();
    const api = fakeApi(admin);
    api.logs.mockRejectedValue(new ApiError(0, 'NETWORK', 'ChatBridge is not answering.'));
    renderPage('#/settings', admin, [], api);
    expect((await screen.findByRole('alert')).textContent).toBe('ChatBridge is not answering.');
    expect(screen.queryByText('Reading the log…')).toBeNull();
  });
});
