// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { UsageFigures, UsageView } from '../../renderer/src/api.js';
import { adminState, agent, fakeApi, renderPage } from './fixtures.js';
// The dashboard loads this page (and its charts) when first opened: loaded here up front, so
// the first test waits for the page's data, not for the charts' code to be transformed.
import '../../renderer/src/pages/Usage.js';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 21, 0, 0, 0);

function figures(over: Partial<UsageFigures> = {}): UsageFigures {
  return { jobs: 0, succeeded: 0, failed: 0, cancelled: 0, expired: 0, failures: {}, queue_ms: null, run_ms: null, answer_ms: null, ...over };
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** 24 hourly buckets: 3 ChatGPT jobs at 10:00 (one failed), 1 Claude job at 11:00. */
function usage(): UsageView {
  const series = Array.from({ length: 24 }, (_, i) => ({ start: iso(START + i * HOUR), figures: figures(), providers: {} as Record<string, number> }));
  series[10] = {
    ...series[10]!,
    figures: figures({ jobs: 3, succeeded: 2, failed: 1, failures: { PROVIDER_ERROR: 1 }, answer_ms: { p50: 4_000, p95: 9_000 } }),
    providers: { chatgpt: 3 },
  };
  series[11] = { ...series[11]!, figures: figures({ jobs: 1, succeeded: 1, answer_ms: { p50: 2_000, p95: 2_000 } }), providers: { claude: 1 } };
  const totals = figures({
    jobs: 4,
    succeeded: 3,
    failed: 1,
    failures: { PROVIDER_ERROR: 1 },
    queue_ms: { p50: 150, p95: 900 },
    run_ms: { p50: 3_500, p95: 8_000 },
    answer_ms: { p50: 4_000, p95: 9_000 },
  });
  return {
    since: iso(START),
    until: iso(START + 24 * HOUR),
    bucket_ms: HOUR,
    totals,
    series,
    groups: {
      provider: [{ id: 'chatgpt', name: 'ChatGPT', figures: figures({ jobs: 3 }) }],
      agent: [
        { id: 'agt_1', name: 'chatgpt-1', figures: figures({ jobs: 3, succeeded: 2, failed: 1, queue_ms: { p50: 150, p95: 900 }, run_ms: { p50: 3_500, p95: 8_000 } }) },
        { id: 'agt_gone', name: 'agt_gone (removed)', figures: figures({ jobs: 1, succeeded: 1 }) },
      ],
      key: [{ id: 'key_a', name: 'reports', figures: figures({ jobs: 4, succeeded: 3, failed: 1 }) }],
    },
  };
}

function setUp() {
  const admin = adminState([agent({ id: 'agt_1', name: 'chatgpt-1' })]);
  const api = fakeApi(admin);
  api.usage.mockResolvedValue(usage());
  api.keys.mockResolvedValue([
    { id: 'key_a', name: 'reports', hint: 'cb_ab', scopes: ['completions:write'], created_at: iso(START), expires_at: null, revoked_at: null, last_used_at: null },
    { id: 'key_old', name: 'old script', hint: 'cb_cd', scopes: ['completions:write'], created_at: iso(START), expires_at: null, revoked_at: iso(START), last_used_at: null },
  ]);
  return renderPage('#/usage', admin, [], api);
}

describe('Usage', () => {
  it('shows the totals, a chart per question and the tables by key and agent', async () => {
    const { api } = setUp();
    expect(await screen.findByText('75%')).toBeTruthy(); // 3 of 4 succeeded
    expect(api.usage).toHaveBeenCalledWith('24h', {});
    const tile = (label: string) => screen.getByText(label, { selector: '.tile-label' }).parentElement!;
    expect(within(tile('Jobs')).getByText('4')).toBeTruthy();
    expect(within(tile('Failed or expired')).getByText('PROVIDER_ERROR')).toBeTruthy();
    expect(within(tile('Time to answer')).getByText('4.0 s')).toBeTruthy();
    expect(within(tile('Time to answer')).getByText('median; 95% within 9.0 s')).toBeTruthy();
    // The charts themselves are drawn in real Chromium (test/e2e/usage.test.ts); here, that each is there.
    for (const title of ['Jobs per hour, by provider', 'Failures per hour, by code', 'Time to answer (from sending to the answer)']) {
      expect(screen.getByRole('figure', { name: title })).toBeTruthy();
    }
    const byAgent = screen.getByRole('table', { name: 'By agent' });
    const rows = within(byAgent).getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell').map((c) => c.textContent));
    expect(rows).toEqual([
      ['chatgpt-1', '3', '2', '1', '0', '0', '150 ms / 900 ms', '3.5 s / 8.0 s'],
      ['agt_gone (removed)', '1', '1', '0', '0', '0', '—', '—'],
    ]);
    expect(within(screen.getByRole('table', { name: 'By key' })).getByText('reports')).toBeTruthy();
  });

  it('asks again for another range, key or agent; offers revoked keys, the admin token and removed agents', async () => {
    const { api } = setUp();
    await screen.findByText('75%');
    fireEvent.click(screen.getByRole('button', { name: 'Last 90 days' }));
    await waitFor(() => expect(api.usage).toHaveBeenLastCalledWith('90d', {}));
    expect(screen.getByRole('button', { name: 'Last 90 days' }).getAttribute('aria-pressed')).toBe('true');

    const keys = screen.getByRole('combobox', { name: 'Key' });
    await waitFor(() => expect(within(keys).getAllByRole('option').map((o) => o.textContent)).toEqual(['All keys', 'reports', 'old script (revoked)', 'Admin token (dashboard)']));
    fireEvent.change(keys, { target: { value: 'key_old' } });
    await waitFor(() => expect(api.usage).toHaveBeenLastCalledWith('90d', { key: 'key_old' }));

    const agents = screen.getByRole('combobox', { name: 'Agent' });
    expect(within(agents).getAllByRole('option').map((o) => o.textContent)).toEqual(['All agents', 'chatgpt-1 (ChatGPT)', 'agt_gone (removed)']);
    fireEvent.change(agents, { target: { value: 'agt_gone' } });
    await waitFor(() => expect(api.usage).toHaveBeenLastCalledWith('90d', { key: 'key_old', agent: 'agt_gone' }));
    fireEvent.change(keys, { target: { value: '' } });
    await waitFor(() => expect(api.usage).toHaveBeenLastCalledWith('90d', { agent: 'agt_gone' }));
  });

  it('says when nothing finished, and shows what went wrong', async () => {
    const admin = adminState();
    const api = fakeApi(admin);
    api.usage.mockResolvedValueOnce({ ...usage(), totals: figures(), series: [], groups: { provider: [], agent: [], key: [] } });
    renderPage('#/usage', admin, [], api);
    expect(await screen.findByText('No finished jobs in the last 24 hours')).toBeTruthy();
    expect(screen.queryByRole('figure')).toBeNull();

    api.usage.mockRejectedValueOnce(new Error('boom'));
    fireEvent.click(screen.getByRole('button', { name: 'Last 7 days' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/Something went wrong/);
  });
});
