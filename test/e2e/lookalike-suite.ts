/**
 * Answers and prompts that say what the sites' notices say (test/support/lookalikes.ts),
 * through the whole service and a real browser on a simulated site: each comes back whole,
 * byte for byte, its agent is never set aside, and the conversation alone told them apart
 * (no fresh page was opened to confirm a wall). Each prompt's first line, the chat's title
 * in the sidebar and the tab, looks like a notice too; the last job continues a chat, so
 * the lookalikes stand in an earlier turn as a new answer streams.
 *
 * `confirmed`: on this look the pack knows no answer while it streams, so what the answer
 * says is taken apart from notices by fresh pages of the site (fresh-page.ts), not by the
 * conversation: the jobs still come back whole and no agent is set aside.
 */
import { afterAll, beforeAll } from 'vitest';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { SimLook } from '../../agents/simulator/site-server.js';
import type { Provider } from '../../main/core/providers.js';
import { describeBeside, inOrder } from '../support/beside.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { LOOKALIKE_MARKDOWN, lookalikePrompt, TITLE_LOOKALIKES } from '../support/lookalikes.js';

export function lookalikeSuite(provider: Provider, look: SimLook = {}, { confirmed = false }: { confirmed?: boolean } = {}, titles: readonly string[] = TITLE_LOOKALIKES): void {
  const { name, layouts } = SIM_SITES[provider];
  const drift = look.drift?.length ? `, drift: ${look.drift.join('+')}` : '';

  describeBeside(`${name} answers that look like its notices (layout ${look.layout ?? layouts[0]}${drift})`, () => {
    let e: E2E;
    beforeAll(async () => {
      e = await startE2E(provider, 1, look);
    }, 60_000);
    afterAll(async () => e?.stop());

    inOrder('come back whole, and set no agent aside', async ({ expect }) => {
      const agent = e.browserAgents[0]!;
      let chatRef: string | null = null;
      const freshLooks = () => e.service.log.recent().filter((entry) => /fresh page/.test(entry.message)).length;
      /** The jobs that needed a fresh page of the site to tell a lookalike from a notice. */
      const looked: string[] = [];
      for (const [i, title] of [...titles, titles.at(-1)!].entries()) {
        const continued = i === titles.length && chatRef !== null;
        // Its own words first: an answer the same as the last is another matter (turns.ts, `reRendered`).
        const answer = continued ? `Once more:\n\n${LOOKALIKE_MARKDOWN}` : LOOKALIKE_MARKDOWN;
        const chat = continued ? { mode: 'continue', conversation_ref: chatRef } : {};
        const before = freshLooks();
        const r = await e.api('POST', '/v1/completions', { body: { provider, prompt: lookalikePrompt(title, answer), ...chat } });
        const what = `"${title}"${continued ? ' (continued)' : ''}`;
        const attempts = await e.service.store.attempts(r.body.id ?? r.body.error?.details?.job_id);
        expect(r.status, `${what}: ${JSON.stringify(attempts)}`).toBe(200);
        expect(r.body.response, what).toBe(answer);
        expect(r.body.attempts, what).toBe(1);
        expect(e.service.pool.state(agent.id), what).toBe('idle');
        chatRef = r.body.conversation_ref as string;
        if (freshLooks() > before) looked.push(what);
      }
      if (!confirmed) expect(looked).toEqual([]);
    }, 120_000);
  });
}
