// @vitest-environment happy-dom
import { act, cleanup, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useDashboard } from '../../renderer/src/store.js';
import { adminState, agent, job, renderPage } from './fixtures.js';

describe('Overview', () => {
  it('tells a newcomer how to add an agent and send a first job', () => {
    renderPage('#/overview', adminState());
    expect(screen.getByRole('heading', { level: 1, name: 'Overview' })).toBeTruthy();
    expect(screen.getByText('No agents yet')).toBeTruthy();
    expect(screen.getByText(/chatbridge serve --simulate/)).toBeTruthy();
    expect(screen.getByText('No job is running')).toBeTruthy();
  });

  it('shows each provider with idle agents, usage against its cap and when the next slot frees', () => {
    const state = adminState([agent(), agent({ id: 'agt_2', name: 'claude-1', provider: 'claude', state: 'busy' })]);
    const slot = new Date(Date.now() + 600_000).toISOString();
    state.status.providers.claude = { agents_idle: 0, agents_total: 1, rate_limit_per_hour: 2, used_this_hour: 2, next_slot_at: slot };
    state.status.queue = { depth: 3, oldest_queued_at: new Date(Date.now() - 120_000).toISOString() };
    renderPage('#/overview', state, [job({ id: 'job_run', status: 'dispatched', agent_name: 'claude-1', prompt_excerpt: 'Write a poem' })]);

    const claude = screen.getByRole('article', { name: 'Claude' });
    expect(within(claude).getByText('idle of 1').parentElement!.textContent).toBe('0 idle of 1');
    expect(within(claude).getByText(/2 of 2 attempts this hour/).textContent).toMatch(/next slot frees at/);
    // What "this hour" counts: attempt starts, which is what the caps count.
    const hour = screen.getByText('This hour').parentElement!;
    expect(within(hour).getByText('attempts started in the last 60 min · no overall cap')).toBeTruthy();
    expect(screen.getByRole('article', { name: 'ChatGPT' })).toBeTruthy();
    expect(screen.queryByRole('article', { name: 'Gemini' })).toBeNull();
    expect(screen.getByText('oldest sent 2 min ago')).toBeTruthy();
    expect(screen.getByRole('link', { name: /Write a poem/ }).getAttribute('href')).toBe('#/jobs/job_run');
  });

  it("says on each provider's card why its agents that are not idle are not", () => {
    const until = new Date(Date.now() + 1_800_000).toISOString();
    renderPage(
      '#/overview',
      adminState([
        agent(),
        agent({ id: 'agt_2', name: 'chatgpt-2', state: 'resting', cooldown_until: until }),
        agent({ id: 'agt_3', name: 'claude-1', provider: 'claude', state: 'needs_login', detail: 'Claude asks to log in.' }),
      ]),
    );
    const chatgpt = within(screen.getByRole('article', { name: 'ChatGPT' }));
    expect(chatgpt.getByRole('link', { name: 'chatgpt-2' }).closest('li')!.textContent).toMatch(/^chatgpt-2: resting · until /);
    expect(chatgpt.queryByText('chatgpt-1')).toBeNull();
    const claude = within(screen.getByRole('article', { name: 'Claude' }));
    expect(claude.getByRole('link', { name: 'claude-1' }).closest('li')!.textContent).toBe('claude-1: needs login · Claude asks to log in.');
    expect(claude.getByRole('link', { name: 'claude-1' }).getAttribute('href')).toBe('#/agents');
  });

  it('counts a resting agent as resting, not ready, as the Agents page shows it', () => {
    const until = new Date(Date.now() + 1_800_000).toISOString();
    renderPage('#/overview', adminState([agent(), agent({ id: 'agt_2', name: 'chatgpt-2', state: 'resting', cooldown_until: until })]));
    const tile = screen.getByText('Agents ready').parentElement!;
    expect(within(tile).getByText('1 of 2')).toBeTruthy();
    expect(within(tile).getByText('0 busy, 1 resting')).toBeTruthy();
  });

  it('follows the live feed without a reload', () => {
    renderPage('#/overview', adminState([agent()]));
    expect(screen.getByText('No job is running')).toBeTruthy();
    act(() => useDashboard.getState().upsertJob(job({ id: 'job_live', status: 'dispatched', prompt_excerpt: 'Live one' })));
    expect(screen.getByRole('link', { name: /Live one/ })).toBeTruthy();
    act(() => useDashboard.getState().upsertJob(job({ id: 'job_live', status: 'succeeded', prompt_excerpt: 'Live one' })));
    expect(screen.getByText('No job is running')).toBeTruthy();
  });

  it('shows no devices on a desktop (one device, itself), and every device with its agents when several share a database', () => {
    renderPage('#/overview', adminState([agent()]));
    expect(screen.queryByRole('region', { name: 'Devices' })).toBeNull();

    const state = adminState([agent()]);
    const summary = (id: string, name: string, provider: string, state: string) => ({ id, name, provider, state, cooldown_until: null, rate_limit_per_hour: null, used_this_hour: 0, next_slot_at: null });
    state.status.devices = [
      { name: 'desk', base_url: 'http://desk.lan:8787', online: true, paused: false, agents: [summary('agt_1', 'chatgpt-1', 'chatgpt', 'idle')] },
      { name: 'basement', base_url: null, online: true, paused: false, agents: [summary('agt_2', 'gemini-1', 'gemini', 'busy')] },
      { name: 'laptop', base_url: 'http://laptop.lan:8787', online: false, paused: false, agents: [summary('agt_3', 'claude-1', 'claude', 'idle')] },
    ];
    cleanup();
    renderPage('#/overview', state);
    const devices = within(screen.getByRole('region', { name: 'Devices' }));
    const desk = within(devices.getByRole('article', { name: 'desk' }));
    expect(desk.getByText('this one')).toBeTruthy();
    expect(desk.getByText('online')).toBeTruthy();
    expect(desk.getByText('http://desk.lan:8787')).toBeTruthy();
    const basement = within(devices.getByRole('article', { name: 'basement' }));
    expect(basement.getByText('--no-api')).toBeTruthy();
    expect(basement.getByText('gemini-1').parentElement!.textContent).toBe('gemini-1Geminibusy');
    const laptop = within(devices.getByRole('article', { name: 'laptop' }));
    expect(laptop.getByText('offline')).toBeTruthy();
    expect(laptop.queryByText('this one')).toBeNull();
    expect(laptop.getByText(/take no jobs until it is back/)).toBeTruthy();
  });
});
