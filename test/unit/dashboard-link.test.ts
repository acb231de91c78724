/**
 * The dashboard link holds the admin token: `serve` prints it to a person at a terminal only
 * (the processes the other tests start write to pipes, so they see the other side).
 */
import { describe, expect, it } from 'vitest';
import { printsDashboardLink } from '../../main/cli/admin-token.js';

describe('the dashboard link serve prints', () => {
  it('goes to a terminal, never to a pipe, a file or a journal, and never in the hosted profile', () => {
    expect(printsDashboardLink({ isTTY: true }, 'personal')).toBe(true);
    expect(printsDashboardLink({}, 'personal')).toBe(false);
    expect(printsDashboardLink({ isTTY: true }, 'hosted')).toBe(false);
    expect(printsDashboardLink({}, 'hosted')).toBe(false);
  });
});
