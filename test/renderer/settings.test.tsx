// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminState, renderPage } from './fixtures.js';

describe('Settings', () => {
  it('shows the address, port, data folder and version, and says there is no log view yet', () => {
    renderPage('#/settings', adminState());
    expect(screen.getByText('http://127.0.0.1:4555/v1')).toBeTruthy();
    expect(screen.getByText('4555')).toBeTruthy();
    expect(screen.getByText('/home/me/.chatbridge')).toBeTruthy();
    expect(screen.getByText('0.1.0')).toBeTruthy();
    expect(screen.getByText(/no log view yet/)).toBeTruthy();
  });
});
