// @vitest-environment happy-dom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminState, renderPage } from './fixtures.js';

describe('Webhooks', () => {
  it('hides the signing secret until asked, then rotates it after a confirmation', async () => {
    const { api } = renderPage('#/webhooks', adminState());
    expect(screen.getByTestId('signing-secret').textContent).not.toContain('whsec_current');
    expect(api.signingSecret).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Reveal' }));
    await waitFor(() => expect(screen.getByTestId('signing-secret').textContent).toBe('whsec_current'));
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret' }));
    fireEvent.click(screen.getByRole('button', { name: 'Rotate now' }));
    await waitFor(() => expect(screen.getByTestId('signing-secret').textContent).toBe('whsec_next'));
    expect(screen.getByText(/New secret in use/)).toBeTruthy();
  });
});
