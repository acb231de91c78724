import type { AgentView } from './api.js';
import { clockTime } from './format.js';

type Tone = 'good' | 'busy' | 'warn' | 'bad' | 'quiet';

/** An agent's state in words, with what to do about it. */
export function describeAgent(agent: AgentView, allPaused: boolean): { label: string; tone: Tone; hint: string } {
  if (agent.pairing) return { label: 'logging in', tone: 'warn', hint: 'A login is open: finish it in the page, or cancel it.' };
  switch (agent.state) {
    case 'resting':
      return {
        label: 'resting',
        tone: 'warn',
        hint: `The provider's usage limit was reached; it takes jobs again${agent.cooldown_until ? ` at ${clockTime(agent.cooldown_until)}` : ' later'}.`,
      };
    case 'idle':
      return allPaused
        ? { label: 'idle', tone: 'quiet', hint: 'Logged in, but all agents are paused: resume them on the Overview page.' }
        : { label: 'idle', tone: 'good', hint: 'Logged in and ready for the next job.' };
    case 'busy':
      return { label: 'busy', tone: 'busy', hint: 'Running a job now.' };
    case 'paused':
      return { label: 'paused', tone: 'quiet', hint: 'Takes no jobs until you enable it.' };
    case 'needs_login':
      return { label: 'needs login', tone: 'bad', hint: 'Not logged in: press “Log in” and log in to the provider in its page.' };
    default:
      return {
        label: 'not running',
        tone: 'bad',
        hint: "Its browser is not running, stopped answering, or shows something in the way (such as a verification): press “Log in” to see its page and deal with it.",
      };
  }
}
