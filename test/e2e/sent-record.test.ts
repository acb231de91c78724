/**
 * The prompt's going is kept in the job's record before Send is pressed (AgentTask.onSent):
 * a service killed at any moment after the press then knows the prompt may have gone, and
 * never sends it again blindly. A record that is slow to keep it (a PostgreSQL store's query)
 * holds the press; one that cannot keep it sends nothing. Real Chromium against the simulated
 * ChatGPT, by the flow every agent runs.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_LIMITS, flowContext } from '../../agents/providers/flow-context.js';
import { openNewChat, runTurn, waitUntilReady } from '../../agents/providers/flow.js';
import { atBaseUrl, PROVIDER_SITES } from '../../agents/providers/index.js';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import type { SentPrompt } from '../../main/core/agent.js';
import { openSimPage, type SimPage } from '../support/sim-page.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';
import { until } from '../support/until.js';

let browser: Browser;
beforeAll(async () => {
  browser = await takeTestBrowser();
}, 30_000);
afterAll(() => giveBackTestBrowser(browser));

/** `prompt` run on a signed-in simulated ChatGPT page, each report of its going answered by `onSent`. */
async function turn(opened: SimPage, prompt: string, onSent: (sent: SentPrompt) => Promise<void>) {
  const site = atBaseUrl(PROVIDER_SITES.chatgpt, opened.sim.url);
  await openNewChat(flowContext(opened.page, site));
  await waitUntilReady(flowContext(opened.page, site));
  const signal = AbortSignal.timeout(30_000);
  return runTurn(flowContext(opened.page, site, { limits: FLOW_LIMITS, signal }), { prompt, variant: null, label: 'sent-record-test', onSent });
}

describe('the prompt’s going, kept before Send is pressed', () => {
  it('a record slow to keep it holds the press: nothing reaches the site meanwhile, one send once it is kept', async () => {
    const opened = await openSimPage(browser, 'chatgpt');
    try {
      const prompt = 'Kept first [[sim:ms=40]]';
      const heard: SentPrompt[] = [];
      let keep!: () => void;
      const held = new Promise<void>((resolve) => (keep = resolve));
      const answer = turn(opened, prompt, (sent) => {
        heard.push(sent);
        return heard.length === 1 ? held : Promise.resolve();
      });
      await until(() => heard.length === 1, 15_000, 'the prompt told as going');
      // A press comes within milliseconds of the report when nothing holds it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(opened.sim.log.sends).toEqual([]);
      keep();
      const result = await answer;
      expect(result.text).toBe(simulatedAnswer('ChatGPT', 'chatgpt', prompt, 1));
      expect(opened.sim.log.sends.map((s) => s.prompt)).toEqual([prompt]);
      // First as it went (a new chat: no address yet), then with the address the page gave it.
      expect(heard).toEqual([
        { conversation: null, turnsBefore: 0 },
        { conversation: result.conversation, turnsBefore: 0 },
      ]);
    } finally {
      await opened.close();
    }
  }, 45_000);

  it('a record that cannot keep it sends nothing: the attempt fails with the record’s words', async () => {
    const opened = await openSimPage(browser, 'chatgpt');
    try {
      const attempt = turn(opened, 'Never kept [[sim:ms=40]]', () => Promise.reject(new Error('The job’s record could not keep it (disk full).')));
      await expect(attempt).rejects.toThrow('The job’s record could not keep it (disk full).');
      // Long enough for a press made regardless to reach the site.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(opened.sim.log.sends).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 45_000);
});
