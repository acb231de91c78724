import type { AgentView } from './api.js';
import { clockTime, relative } from './format.js';

type Tone = 'good' | 'busy' | 'warn' | 'bad' | 'quiet';

/** "at 15:32 (in 4 min)", in this browser's own time. */
const at = (iso: string, now: number) => `at ${clockTime(iso, now)} (${relative(iso, now)})`;

/** When an agent set aside, resting or logged out looks at its page again on its own, in words (and that “Check now” looks at once, where the card shows it). */
function nextLook(agent: AgentView, now: number, checkNow = true): string {
  if (!agent.next_check_at) return '';
  return ` It looks at its page again on its own ${at(agent.next_check_at, now)}${checkNow ? ', or now with “Check now”' : ''}.`;
}

/** An agent's state in words, with what to do about it. */
export function describeAgent(agent: AgentView, allPaused: boolean, now = Date.now()): { label: string; tone: Tone; hint: string } {
  if (agent.pairing) return { label: 'logging in', tone: 'warn', hint: 'A login is open: finish it in the page, or cancel it.' };
  switch (agent.state) {
    case 'resting':
      return {
        label: 'resting',
        tone: 'warn',
        hint: `The provider's usage limit was reached${agent.cooldown_until ? ` until ${clockTime(agent.cooldown_until, now)}` : ''}; it takes jobs again once its page shows no limit.${nextLook(agent, now)}`,
      };
    case 'idle':
      if (allPaused) return { label: 'idle', tone: 'quiet', hint: 'Logged in, but all agents are paused: resume them on the Overview page.' };
      return agent.pause_until
        ? { label: 'idle', tone: 'good', hint: `Logged in; pausing between jobs (a guard against bans) until ${clockTime(agent.pause_until, now)} (${relative(agent.pause_until, now)}).` }
        : { label: 'idle', tone: 'good', hint: 'Logged in and ready for the next job.' };
    case 'busy':
      return { label: 'busy', tone: 'busy', hint: 'Running a job now.' };
    case 'paused':
      return { label: 'paused', tone: 'quiet', hint: 'Takes no jobs until you enable it.' };
    case 'needs_login':
      return { label: 'needs login', tone: 'bad', hint: `Not logged in: press “Log in” and log in to the provider in its page.${nextLook(agent, now, false)}` };
    default:
      return {
        label: 'not running',
        tone: 'bad',
        hint: `Its browser is not running, stopped answering, or shows something in the way (such as a verification): press “Log in” to see its page and deal with it.${nextLook(agent, now)}`,
      };
  }
}
