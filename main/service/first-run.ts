import type { AgentRoster } from '../core/agent-roster.js';
import { CLI } from '../core/cli-name.js';

/**
 * The one line `serve` and `start` print while no account is paired: without one every
 * job waits, so a newcomer is told at once how to add one. `addLink` is the dashboard's
 * "Add account" (signed in), where there is a link to give.
 */
export function noAccountNotice(roster: AgentRoster, addLink: string | null): string | null {
  if (roster.list().length > 0) return null;
  const where = addLink ? `in the dashboard (${addLink})` : 'in the dashboard (Agents → Add account)';
  return `no account is paired yet: jobs wait until you add one ${where} or with ${CLI} agents add PROVIDER`;
}
