// @vitest-environment happy-dom
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ApiError } from '../../renderer/src/api.js';
import { useDashboard } from '../../renderer/src/store.js';
import { describe, expect, it } from 'vitest';
import { adminState, agent, renderPage } from './fixtures.js';

describe('Agents', () => {
  it('says what an agent is and offers to add an account when there is none', () => {
    renderPage('#/agents', adminState());
    expect(screen.getByText('No agents yet')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Add an account' }).getAttribute('href')).toBe('#/agents/add');
  });

  it('shows each state with what to do about it', () => {
    renderPage(
      '#/agents',
      adminState([
        agent(),
        agent({ id: 'agt_2', name: 'Work Claude', provider: 'claude', state: 'needs_login', detail: 'The login page is showing.', next_check_at: new Date(Date.now() + 5 * 60_000 + 20_000).toISOString() }),
        agent({ id: 'agt_3', name: 'Old Gemini', provider: 'gemini', state: 'paused', enabled: false }),
      ]),
    );
    expect(within(screen.getByRole('article', { name: 'chatgpt-1' })).getByText('Logged in and ready for the next job.')).toBeTruthy();
    const claude = screen.getByRole('article', { name: 'Work Claude' });
    expect(within(claude).getByText('needs login')).toBeTruthy();
    // Looked at again on its own (nothing sent), in case the session comes back; no “Check now” on its card.
    expect(within(claude).getByText(/Not logged in: press “Log in” .*\. It looks at its page again on its own at .* \(in 5 min\)\.$/)).toBeTruthy();
    expect(within(claude).getByRole('button', { name: 'Log in' })).toBeTruthy();
    expect(within(claude).getByText('What it reports: The login page is showing.')).toBeTruthy();
    expect(within(screen.getByRole('article', { name: 'Old Gemini' })).getByRole('button', { name: 'Enable this agent' })).toBeTruthy();
  });

  it('shows a resting agent with the limit\'s time and when it looks again, in this browser\'s time and from now', () => {
    const nextCheck = new Date(Date.now() + 4 * 60_000 + 20_000).toISOString();
    renderPage('#/agents', adminState([agent({ state: 'resting', cooldown_until: '2026-11-21T21:54:00Z', next_check_at: nextCheck })]));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    expect(within(card).getByText('resting')).toBeTruthy();
    const local = new Date(nextCheck).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    expect(within(card).getByText(/usage limit was reached until .*; it takes jobs again once its page shows no limit\. It looks at its page again on its own at (.+) \(in 4 min\)/).textContent).toContain(local);
    // Resting is logged in: what it needs is a look at its page, not a login.
    expect(within(card).getByRole('button', { name: 'Check now' }).className).toBe('primary');
    expect(within(card).queryByRole('button', { name: 'Log in' })).toBeNull();
  });

  it('makes "Log in" the primary action only of an agent that needs a login', () => {
    renderPage(
      '#/agents',
      adminState([
        agent({ state: 'needs_login' }),
        agent({ id: 'agt_2', name: 'Set aside', state: 'error', detail: 'ChatGPT: cannot find the send control.', next_check_at: new Date(Date.now() + 60_000).toISOString() }),
      ]),
    );
    const primaries = (name: string) =>
      within(screen.getByRole('article', { name }))
        .getAllByRole('button')
        .filter((b) => b.className === 'primary')
        .map((b) => b.textContent);
    expect(primaries('chatgpt-1')).toEqual(['Log in']);
    // Set aside: it looks again on its own or now; its page can still be opened to deal with what is in the way.
    expect(primaries('Set aside')).toEqual(['Check now']);
    expect(within(screen.getByRole('article', { name: 'Set aside' })).getByRole('button', { name: 'Log in' })).toBeTruthy();
  });

  it("watches a resting agent's page without offering a login", () => {
    renderPage('#/agents/agt_1', adminState([agent({ state: 'resting', cooldown_until: new Date(Date.now() + 3_600_000).toISOString() })]));
    expect(screen.getByRole('heading', { name: 'Watching chatgpt-1' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Watching chatgpt-1' })).queryByRole('button', { name: 'Log in' })).toBeNull();
  });

  it('shows an agent pausing between jobs as idle, saying until when', () => {
    renderPage('#/agents', adminState([agent({ pause_until: new Date(Date.now() + 12_000).toISOString() })]));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    expect(within(card).getByText('idle')).toBeTruthy();
    expect(within(card).getByText(/pausing between jobs \(a guard against bans\) until .* \(in 12 s\)/)).toBeTruthy();
  });

  it("sets an agent's own pause (empty: the global one) and its proxy, which is only ever shown masked", async () => {
    const { api } = renderPage('#/agents', adminState([agent({ proxy: 'http://a…:••••@proxy.example:3128' })]));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    const pause = within(card).getByLabelText('Pause') as HTMLInputElement;
    expect(pause.placeholder).toBe('10 (default)');
    fireEvent.change(pause, { target: { value: '25' } });
    fireEvent.click(within(pause.closest('form')!).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { pause_ms: 25_000 }));

    const proxy = within(card).getByLabelText('Proxy') as HTMLInputElement;
    expect(proxy.value).toBe('');
    expect(proxy.placeholder).toBe('http://a…:••••@proxy.example:3128');
    fireEvent.change(proxy, { target: { value: ' socks5://10.0.0.2:1080 ' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Replace' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { proxy: 'socks5://10.0.0.2:1080' }));
    // Disabled until the replacement's save has settled: a click before then does nothing.
    const noProxy = within(card).getByRole('button', { name: 'No proxy' }) as HTMLButtonElement;
    await waitFor(() => expect(noProxy.disabled).toBe(false));
    fireEvent.click(noProxy);
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { proxy: null }));
  });

  it('pauses, renames and caps an agent through the API', async () => {
    const { api } = renderPage('#/agents', adminState([agent()]));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    fireEvent.click(within(card).getByRole('button', { name: 'Pause this agent' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { enabled: false }));

    fireEvent.change(within(card).getByLabelText('Name'), { target: { value: '  Personal  ' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Rename' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { name: 'Personal' }));

    const cap = within(card).getByLabelText('Cap');
    fireEvent.change(cap, { target: { value: '12' } });
    fireEvent.click(within(cap.closest('form')!).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { cap_per_hour: 12 }));
  });
});

describe('Adding an account and logging in (headless: in the dashboard)', () => {
  it('adds an account for the chosen provider and opens its page', async () => {
    const { api } = renderPage('#/agents/add', adminState([agent()]));
    const open = screen.getByRole('button', { name: 'Open the login page' });
    expect((open as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByLabelText('Claude'));
    fireEvent.change(screen.getByLabelText('Name (optional)'), { target: { value: ' Work ' } });
    fireEvent.click(open);
    await waitFor(() => expect(api.addAgent).toHaveBeenCalledWith('claude', 'Work'));
    await waitFor(() => expect(window.location.hash).toBe('#/agents/agt_new'));
  });

  it('shows a login with the page live, and plays clicks (in page pixels) and keys into it', async () => {
    const pairing = agent({ id: 'agt_2', name: 'Claude 1', provider: 'claude', state: 'needs_login', pairing: 'login' });
    const { api } = renderPage('#/agents/agt_2', adminState([pairing]));
    expect(screen.getByRole('heading', { name: 'Log in to Claude · Claude 1' })).toBeTruthy();
    expect(api.screen).toHaveBeenCalledWith('agt_2', expect.any(Function), expect.any(Function));
    const onFrame = api.screen.mock.calls[0]![1];
    act(() => onFrame({ jpeg: 'AAAA', width: 1280, height: 900 }));

    const view = screen.getByRole('application', { name: "Claude 1's page" });
    const img = view.querySelector('img')!;
    // Shown at half size, 100 px from the left and 50 from the top of the window.
    img.getBoundingClientRect = () => ({ left: 100, top: 50, width: 640, height: 450, right: 740, bottom: 500, x: 100, y: 50, toJSON: () => ({}) });
    fireEvent.click(img, { clientX: 100 + 320, clientY: 50 + 100 });
    fireEvent.keyDown(view, { key: 'h' });
    fireEvent.keyDown(view, { key: 'Tab', shiftKey: true });
    fireEvent.keyDown(view, { key: 'Enter' });
    fireEvent.keyDown(view, { key: 'a', ctrlKey: true });
    await waitFor(() => expect(api.input).toHaveBeenCalledTimes(5));
    expect(api.input.mock.calls.map((c) => c[1])).toEqual([
      { type: 'click', x: 640, y: 200 },
      { type: 'text', text: 'h' },
      { type: 'key', key: 'Shift+Tab' },
      { type: 'key', key: 'Enter' },
      { type: 'key', key: 'Control+a' },
    ]);

    fireEvent.click(screen.getByRole('button', { name: 'I have logged in' }));
    await waitFor(() => expect(api.logIn).toHaveBeenCalledWith('agt_2'));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(api.endLogIn).toHaveBeenCalledWith('agt_2'));
    expect(window.location.hash).toBe('#/agents');
  });

  it('says so when the login succeeded, and only watches an agent that is not logging in', async () => {
    const pairing = agent({ id: 'agt_2', name: 'Claude 1', provider: 'claude', state: 'needs_login', pairing: 'login' });
    const { api } = renderPage('#/agents/agt_2', adminState([pairing]));
    act(() => useDashboard.getState().setAdmin(adminState([{ ...pairing, state: 'idle', pairing: null }])));
    expect(screen.getByRole('heading', { name: 'Claude 1 is ready' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Done' })).toBeTruthy();
    // No longer a login: the page is only to look at.
    expect(screen.queryByRole('application')).toBeNull();
    expect(api.input).not.toHaveBeenCalled();
  });

  it('#/agents/ID/login (the link chatbridge agents add prints) opens its login, once, unless it is logged in', async () => {
    const state = adminState([agent({ id: 'agt_7', name: 'New GPT', state: 'needs_login' }), agent({ id: 'agt_8', name: 'Old GPT' })]);
    const { api } = renderPage('#/agents/agt_7/login', state);
    await waitFor(() => expect(api.logIn).toHaveBeenCalledWith('agt_7'));
    expect(screen.getByRole('heading', { level: 2, name: /New GPT/ })).toBeTruthy();
    expect(api.logIn).toHaveBeenCalledTimes(1);
  });

  it('removes an agent after asking', async () => {
    const { api } = renderPage('#/agents', adminState([agent()]));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    fireEvent.click(within(card).getByRole('button', { name: 'Remove' }));
    expect(api.removeAgent).not.toHaveBeenCalled();
    fireEvent.click(within(card).getByRole('button', { name: 'Remove it' }));
    await waitFor(() => expect(api.removeAgent).toHaveBeenCalledWith('agt_1'));
  });

  it('shows why a removal was refused', async () => {
    const { api } = renderPage('#/agents', adminState([agent()]));
    api.removeAgent.mockRejectedValueOnce(new ApiError(409, 'CONFLICT', 'This agent is running a job.'));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    fireEvent.click(within(card).getByRole('button', { name: 'Remove' }));
    fireEvent.click(within(card).getByRole('button', { name: 'Remove it' }));
    await within(card).findByText('This agent is running a job.');
  });
});
