// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminState, agent, renderPage } from './fixtures.js';

describe('Agents', () => {
  it('says what an agent is and where accounts are added when there is none', () => {
    renderPage('#/agents', adminState());
    expect(screen.getByText('No agents yet')).toBeTruthy();
    expect(screen.getByText(/Add an account from the desktop app/)).toBeTruthy();
  });

  it('shows each state with what to do about it', () => {
    renderPage(
      '#/agents',
      adminState([
        agent(),
        agent({ id: 'agt_2', name: 'Work Claude', provider: 'claude', state: 'needs_login', detail: 'The login page is showing.' }),
        agent({ id: 'agt_3', name: 'Old Gemini', provider: 'gemini', state: 'paused', enabled: false }),
      ]),
    );
    expect(within(screen.getByRole('article', { name: 'chatgpt-1' })).getByText('Logged in and ready for the next job.')).toBeTruthy();
    const claude = screen.getByRole('article', { name: 'Work Claude' });
    expect(within(claude).getByText('needs login')).toBeTruthy();
    expect(within(claude).getByText('Needs login: log in again in the desktop app.')).toBeTruthy();
    expect(within(claude).getByText('What it reports: The login page is showing.')).toBeTruthy();
    expect(within(screen.getByRole('article', { name: 'Old Gemini' })).getByRole('button', { name: 'Enable this agent' })).toBeTruthy();
  });

  it('pauses, renames and caps an agent through the API', async () => {
    const { api } = renderPage('#/agents', adminState([agent()]));
    const card = screen.getByRole('article', { name: 'chatgpt-1' });
    fireEvent.click(within(card).getByRole('button', { name: 'Pause this agent' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { enabled: false }));

    fireEvent.change(within(card).getByLabelText('Name'), { target: { value: '  Personal  ' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Rename' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { name: 'Personal' }));

    fireEvent.change(within(card).getByLabelText('Cap'), { target: { value: '12' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { cap_per_hour: 12 }));
  });
});
