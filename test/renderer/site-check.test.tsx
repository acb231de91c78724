// @vitest-environment happy-dom
/**
 * The Agents page's "Check site" (the same table as `chatbridge sites check`) and "Check
 * now" for an agent set aside or resting after a usage limit.
 */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, type SiteCheckView } from '../../renderer/src/api.js';
import { adminState, agent, fakeApi, renderPage } from './fixtures.js';

const check: SiteCheckView = {
  agent_id: 'agt_1',
  provider: 'chatgpt',
  site: 'ChatGPT',
  at: '2026-11-02T10:00:00Z',
  pack: { version: 5, checked: '2026-10-09', override: '/home/me/.chatbridge/sites/chatgpt.json', override_error: null },
  page_url: 'https://chatgpt.com/',
  sent: false,
  problem: null,
  roles: [
    { role: 'composer', status: 'found', cue: { index: 0, kind: 'structure', css: 'form [contenteditable=true]' } },
    { role: 'send', status: 'missing', cue: null },
    { role: 'answer', status: 'needs_send', cue: null },
    { role: 'limitBanner', status: 'not_shown', cue: null },
  ],
  variants: ['instant', 'thinking'],
  ok: false,
};

describe('Check site and Check now', () => {
  it('checks an idle agent’s site and shows role by role what was found', async () => {
    const state = adminState([agent()]);
    const api = fakeApi(state);
    api.checkSite.mockResolvedValue(check);
    renderPage('#/agents', state, [], api);
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    expect(within(card).queryByRole('button', { name: 'Check now' })).toBeNull();
    fireEvent.click(within(card).getByRole('button', { name: 'Check site' }));
    const result = await within(card).findByLabelText('Site check');
    expect(api.checkSite).toHaveBeenCalledWith('agt_1');
    expect(within(result).getByRole('status').textContent).toBe('Missing: send.');
    expect(within(result).getByText(/pack v5, checked 2026-10-09, with the override \/home\/me\/.chatbridge\/sites\/chatgpt.json/)).toBeTruthy();
    expect(within(result).getByText('Models and modes this account offers: instant, thinking')).toBeTruthy();
    const rows = within(result).getAllByRole('row').map((r) => r.textContent);
    expect(rows).toEqual([
      'RoleFound by',
      'composer#1 structure: form [contenteditable=true]',
      'sendnone',
      'answerneeds a probe prompt (chatbridge sites check --send)',
      'limitBannernot shown now (normal)',
    ]);
  });

  it('shows a refused check in words, and offers no check while the agent is busy', async () => {
    const state = adminState([agent(), agent({ id: 'agt_2', name: 'chatgpt-2', state: 'busy' })]);
    const api = fakeApi(state);
    api.checkSite.mockRejectedValue(new ApiError(409, 'CONFLICT', 'This agent is running a job: check its site once the job is done.'));
    renderPage('#/agents', state, [], api);
    expect(within(screen.getByRole('article', { name: 'chatgpt-2' })).queryByRole('button', { name: 'Check site' })).toBeNull();
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    fireEvent.click(within(card).getByRole('button', { name: 'Check site' }));
    expect(await within(card).findByText(/check its site once the job is done/)).toBeTruthy();
  });

  it('offers Check now to an agent set aside by a changed site, or resting after a usage limit', async () => {
    const changed = agent({
      state: 'error',
      detail: 'site changed: ChatGPT: cannot find the send control.',
      next_check_at: new Date(Date.now() + 14_000).toISOString(),
    });
    const resting = agent({ id: 'agt_2', name: 'chatgpt-2', state: 'resting', cooldown_until: '2026-11-02T21:40:00Z' });
    const state = adminState([changed, resting]);
    const api = fakeApi(state);
    renderPage('#/agents', state, [], api);
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    expect(within(card).getByText(/cannot find the send control\./)).toBeTruthy();
    expect(within(card).getByText(/It looks at its page again on its own at .* \(in 14 s\), or now with “Check now”/)).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(api.recheck).toHaveBeenCalledWith('agt_1'));
    const rest = screen.getByRole('article', { name: 'chatgpt-2' });
    expect(within(rest).getByText(/usage limit was reached until .*; it takes jobs again once its page shows no limit/)).toBeTruthy();
    fireEvent.click(within(rest).getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(api.recheck).toHaveBeenCalledWith('agt_2'));
  });
});
