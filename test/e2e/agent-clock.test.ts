/**
 * A browser agent's decisions follow the service's clock, not the wall clock: after
 * RECHECK_AFTER_MS without a job on a manual clock (no real wait), the next job first opens
 * a fresh chat, which checks the login; sooner, it uses the chat opened after the last job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECHECK_AFTER_MS } from '../../agents/runtime/browser-agent.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { ManualClock } from '../support/manual-clock.js';

describe('a browser agent on the service clock', () => {
  let e: E2E;
  const clock = new ManualClock(Date.now());
  /** Real times at which the agent's page loaded a document. */
  const loads: number[] = [];
  beforeAll(async () => {
    e = await startE2E('chatgpt', 1, {}, { clock });
    const page = e.browserAgents[0]!.page()!;
    page.on('domcontentloaded', () => loads.push(Date.now()));
  }, 60_000);
  afterAll(async () => e?.stop());

  const ask = async (prompt: string) => {
    const r = await e.api('POST', '/v1/completions', { body: { provider: 'chatgpt', prompt } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  /** Pages loaded between the sends of prompts `a` and `b` (real times, as the simulator logs them). */
  const loadsBetween = (a: string, b: string) => {
    const at = (prompt: string) => e.sim.log.sends.find((s) => s.prompt === prompt)!.at;
    return loads.filter((t) => t > at(a) && t < at(b)).length;
  };

  it('opens a fresh chat before a job only once the idle time has passed on that clock', async () => {
    await ask('first');
    await ask('soon after');
    // The chat opened after the first job, and no other: the clock has not moved.
    expect(loadsBetween('first', 'soon after')).toBe(1);

    clock.advance(RECHECK_AFTER_MS + 1);
    await ask('much later');
    // The chat opened after the last job, then another to check the login before this one.
    expect(loadsBetween('soon after', 'much later')).toBe(2);
  });
});
