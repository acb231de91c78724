/**
 * Stop pressed on a page whose renderer is starved, as a loaded machine starves it: the
 * agent's page slowed 50 times (DevTools' CPU throttling) just before each cancel. Real
 * Chromium against the simulated Qwen's A/B layout, where CI's cancel test twice waited in
 * vain for the press. With Playwright's careful click, which waits for frames, three of five
 * such cancels were never pressed within 20 s, and this test failed twice out of two; the
 * press at Stop's centre landed within 0.1 to 0.7 s (2026-11-30).
 */
import type { CDPSession } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startE2E } from '../support/e2e.js';
import { jobIdWhere } from '../support/store.js';
import { until } from '../support/until.js';

const SLOWED = 50;

describe('Stop on a starved page', () => {
  it('is pressed and taken at each of three cancels', async () => {
    const e = await startE2E('qwen', 1, { layout: 'dual' });
    let cdp: CDPSession | undefined;
    const slow = (rate: number) => cdp!.send('Emulation.setCPUThrottlingRate', { rate });
    try {
      const ask = (prompt: string) => e.api('POST', '/v1/completions', { body: { provider: 'qwen', prompt } });
      for (let i = 1; i <= 3; i++) {
        const prompt = `A long answer, number ${i} [[sim:ms=20000]]`;
        const waiting = ask(prompt);
        await until(() => e.sim.log.sends.some((s) => s.prompt === prompt), 15_000, 'the send');
        await new Promise((r) => setTimeout(r, 300)); // the answer under way, as in the provider suites' cancel
        const page = e.browserAgents[0]!.page()!;
        cdp ??= await page.context().newCDPSession(page);
        const id = (await jobIdWhere(e.service.store, (p) => p === prompt))!;
        const stopsBefore = e.sim.log.stops.length;
        await slow(SLOWED);
        expect((await e.api('DELETE', `/v1/completions/${id}`)).body.status).toBe('cancelled');
        expect((await waiting).status).toBe(499);
        await until(() => e.sim.log.stops.length > stopsBefore, 15_000, `the Stop press of cancel ${i}`);
        await slow(1);
      }
      expect(e.service.log.recent(50).filter((l) => /Stop still shows/.test(l.message))).toEqual([]);
    } finally {
      await cdp?.send('Emulation.setCPUThrottlingRate', { rate: 1 }).catch(() => {});
      await e.stop();
    }
  }, 120_000);
});
