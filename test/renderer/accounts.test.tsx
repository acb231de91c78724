// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AccountView } from '../../renderer/src/api.js';
import { adminState, fakeApi, renderPage } from './fixtures.js';

const account = (over: Partial<AccountView> = {}): AccountView => ({
  id: 'acct_1',
  name: 'Acme',
  retention_days: 30,
  disabled: false,
  queue_depth: 12,
  used_this_hour: 4,
  used_today: 40,
  keys: [{ id: 'key_1', name: 'ci', hint: 'cb_AbCd…', scopes: ['completions:write'], created_at: '2026-01-01T00:00:00Z', expires_at: null, revoked_at: null, last_used_at: null }],
  ...over,
});

describe('Accounts (hosted)', () => {
  it('is not a page of the personal profile', async () => {
    renderPage('#/overview', adminState());
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    expect(within(nav).getByRole('link', { name: 'API keys' })).toBeTruthy();
    expect(within(nav).queryByRole('link', { name: 'Accounts' })).toBeNull();
  });

  it('is a page of the hosted profile', async () => {
    renderPage('#/overview', { ...adminState(), profile: 'hosted' });
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    expect(within(nav).getByRole('link', { name: 'Accounts' })).toBeTruthy();
  });

  it("shows each account's queue, usage this hour and today, keys and retention", async () => {
    const state = { ...adminState(), profile: 'hosted' as const };
    const api = fakeApi(state);
    api.accounts.mockResolvedValue([account(), account({ id: 'acct_2', name: 'Globex', disabled: true, retention_days: null, keys: [], queue_depth: 0 })]);
    renderPage('#/accounts', state, [], api);
    const acme = (await screen.findByText('acct_1')).closest('tr')!;
    expect(within(acme).getAllByRole('cell').map((c) => c.textContent)).toEqual(['Acme acct_1 ', '12', '4', '40', 'ci cb_AbCd… ', '30 days']);
    const globex = screen.getByText('acct_2').closest('tr')!;
    expect(within(globex).getByText('disabled')).toBeTruthy();
    expect(within(globex).getAllByRole('cell').map((c) => c.textContent).slice(4)).toEqual(['none', 'kept']);
  });
});

describe('API keys (hosted)', () => {
  it('makes a key for the account picked', async () => {
    const state = { ...adminState(), profile: 'hosted' as const };
    const api = fakeApi(state);
    api.accounts.mockResolvedValue([account(), account({ id: 'acct_2', name: 'Globex' })]);
    api.createKey.mockResolvedValue({ key: account().keys[0]!, secret: 'cb_SECRET' });
    renderPage('#/keys', state, [], api);
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'ci' } });
    const create = screen.getByRole('button', { name: 'Create key' }) as HTMLButtonElement;
    expect(create.disabled).toBe(true); // no account picked yet
    await screen.findByRole('option', { name: 'Globex (acct_2)' });
    fireEvent.change(screen.getByLabelText('Account'), { target: { value: 'acct_2' } });
    fireEvent.click(create);
    await waitFor(() => expect(api.createKey).toHaveBeenCalledWith({ name: 'ci', scopes: ['completions:write', 'completions:read'], expires_in_days: null, account_id: 'acct_2' }));
  });
});
