// @vitest-environment happy-dom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { KeyView } from '../../renderer/src/api.js';
import { adminState, fakeApi, renderPage } from './fixtures.js';

const key = (over: Partial<KeyView> = {}): KeyView => ({
  id: 'key_1',
  name: 'nightly script',
  hint: 'cb_AbCd…',
  scopes: ['completions:read', 'completions:write'],
  created_at: '2026-01-01T00:00:00Z',
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  ...over,
});

describe('API keys', () => {
  it('invites to create a first key', async () => {
    renderPage('#/keys', adminState());
    expect(await screen.findByText('No API keys yet')).toBeTruthy();
  });

  it('lists keys with their last use, never their secret', async () => {
    const api = fakeApi(adminState());
    api.keys.mockResolvedValue([key({ last_used_at: new Date(Date.now() - 180_000).toISOString() }), key({ id: 'key_2', name: 'old', hint: 'cb_Old…', revoked_at: '2026-01-02T00:00:00Z' })]);
    renderPage('#/keys', adminState(), [], api);
    expect(await screen.findByText('nightly script')).toBeTruthy();
    expect(screen.getByText('3 min ago')).toBeTruthy();
    expect(screen.getByText('cb_AbCd…')).toBeTruthy();
    expect(screen.getByText('revoked')).toBeTruthy();
  });

  it('shows a new key once, with a copy button, until it is dismissed', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const api = fakeApi(adminState());
    api.createKey.mockResolvedValue({ key: key({ id: 'key_new', name: 'laptop' }), secret: 'cb_SECRET123' });
    renderPage('#/keys', adminState(), [], api);

    fireEvent.change(screen.getByLabelText('Name'), { target: { value: ' laptop ' } });
    fireEvent.click(screen.getByLabelText(/Read jobs and answers/));
    fireEvent.change(screen.getByLabelText('Expires'), { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create key' }));
    expect((await screen.findByTestId('new-key-secret')).textContent).toBe('cb_SECRET123');
    expect(api.createKey).toHaveBeenCalledWith({ name: 'laptop', scopes: ['completions:write'], expires_in_days: 30 });
    expect(screen.getByText(/shown only this once/)).toBeTruthy();
    expect(api.keys).toHaveBeenCalledTimes(2);

    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('cb_SECRET123'));
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'I have saved it' }));
    expect(screen.queryByText('cb_SECRET123')).toBeNull();
    expect(screen.getByRole('button', { name: 'Create key' })).toBeTruthy();
  });

  it('revokes a key after asking', async () => {
    const api = fakeApi(adminState());
    api.keys.mockResolvedValue([key()]);
    api.revokeKey.mockResolvedValue(key({ revoked_at: '2026-01-02T00:00:00Z' }));
    renderPage('#/keys', adminState(), [], api);
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke' }));
    expect(api.revokeKey).not.toHaveBeenCalled();
    expect(screen.getByText(/stop working at once/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Revoke now' }));
    await waitFor(() => expect(api.revokeKey).toHaveBeenCalledWith('key_1'));
  });
});
