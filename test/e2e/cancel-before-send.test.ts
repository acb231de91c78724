/**
 * A job cancelled before its prompt went is never sent (the account's history gets no prompt
 * nobody waits for, and a retry of a timed-out one could not send it twice). Real Chromium
 * against the simulated Gemini, whose model picker shows up late ({ variants: { lateMs } }) or
 * never opens ({ inertMs }): the agent waits for it before it types, and the cancel comes
 * meanwhile. One cancelled once its prompt went is stopped, even while the site has not yet
 * begun its answer and the page's Stop does nothing ([[sim:reply-ms]]); a Stop the page never
 * takes is said in the log.
 */
import { describe, expect, it } from 'vitest';
import { FLOW_LIMITS } from '../../agents/providers/flow-context.js';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { startE2E } from '../support/e2e.js';
import { until } from '../support/until.js';
import { jobIdWhere } from '../support/store.js';

describe('a job cancelled before, or just after, its prompt is sent', () => {
  it('is not sent: no prompt reaches the site, and the agent takes the next job', async () => {
    const e = await startE2E('gemini', 1, { variants: { lateMs: 2_000 } });
    try {
      e.service.attachAgents(new RuntimeControl(e.runtime)); // the variants the pack offers, as serve has them
      const waiting = e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt: 'Never mind', variant: 'pro' } });
      const id = await until(() => jobIdWhere(e.driver, (prompt) => prompt === 'Never mind'));
      await until(async () => (await e.driver.job(id))?.status === 'dispatched', 15_000, 'the job given to the agent');
      expect((await e.api('DELETE', `/v1/completions/${id}`)).body.status).toBe('cancelled');
      expect((await waiting).status).toBe(499);
      // The one agent runs the next job once the cancelled one has left its page.
      const next = await e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt: 'Next one' } });
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(e.sim.log.sends.map((s) => s.prompt)).toEqual(['Next one']);
      expect(e.sim.log.stops).toEqual([]);
    } finally {
      await e.stop();
    }
  }, 30_000);

  it('frees its agent at once while it waits for a picker that never opens', async () => {
    const e = await startE2E('gemini', 1, { variants: { inertMs: 600_000 } });
    try {
      e.service.attachAgents(new RuntimeControl(e.runtime));
      const waiting = e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt: 'Never mind', variant: 'pro' } });
      const id = await until(() => jobIdWhere(e.driver, (prompt) => prompt === 'Never mind'));
      await until(() => e.sim.log.ignoredPickerClicks > 0, 10_000, 'the agent clicking the picker');
      const cancelledAt = Date.now();
      expect((await e.api('DELETE', `/v1/completions/${id}`)).body.status).toBe('cancelled');
      expect((await waiting).status).toBe(499);
      const next = await e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt: 'Next one' } });
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      // Not after the picker's whole wait: the agent stopped looking when the job was cancelled.
      expect(Date.now() - cancelledAt).toBeLessThan(FLOW_LIMITS.controlsMs);
      expect(e.sim.log.sends.map((s) => s.prompt)).toEqual(['Next one']);
    } finally {
      await e.stop();
    }
  }, 90_000);

  it('once sent, is stopped even before the site begins its answer: Stop is pressed again when the page has not taken it', async () => {
    const e = await startE2E('gemini', 1);
    try {
      // The answer lasts long enough for the presses of a busy machine to come before its end.
      const prompt = 'Slow to start [[sim:reply-ms=1500]] [[sim:ms=12000]]';
      const waiting = e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt } });
      const sent = await until(() => e.sim.log.sends.find((s) => s.prompt === prompt), 15_000, 'the send');
      const id = (await jobIdWhere(e.driver, (p) => p === prompt))!;
      expect((await e.api('DELETE', `/v1/completions/${id}`)).body.status).toBe('cancelled');
      expect((await waiting).status).toBe(499);
      await until(() => e.sim.log.stops.some((s) => s.turn === sent.turn), 15_000, 'the Stop press');
      expect(e.sim.log.finishes).toEqual([]);
    } finally {
      await e.stop();
    }
  }, 60_000);

  it('says in the log when the page takes none of the presses', async () => {
    const e = await startE2E('gemini', 1);
    try {
      const prompt = 'Very slow to start [[sim:reply-ms=20000]] [[sim:ms=4000]]';
      const waiting = e.api('POST', '/v1/completions', { body: { provider: 'gemini', prompt } });
      await until(() => e.sim.log.sends.find((s) => s.prompt === prompt), 15_000, 'the send');
      const id = (await jobIdWhere(e.driver, (p) => p === prompt))!;
      expect((await e.api('DELETE', `/v1/completions/${id}`)).body.status).toBe('cancelled');
      expect((await waiting).status).toBe(499);
      const said = await until(() => e.service.log.recent(50).find((l) => l.level === 'warn' && /Stop still shows/.test(l.message)), 15_000, 'the warning');
      expect(said.message).toMatch(/^Gemini 1: Gemini's Stop still shows after 3 presses/);
      expect(e.sim.log.stops).toEqual([]);
    } finally {
      await e.stop();
    }
  }, 60_000);
});
