/**
 * Collecting the answer to a prompt sent earlier, with no new prompt: its conversation
 * reopened at the address the page gave it (sent-prompt.ts told the queue), the turns the
 * page showed before the send taken as history, and the turn after them watched until it
 * ends, as a run watches its new turn. A long-thinking variant's attempt cut at its time is
 * collected so, once (decisions.md, "Models and modes"); so is an answer a stop of the service
 * left answering, when it runs again. Nothing here types or sends.
 */
import { AgentFailure, type AgentResult, type CollectTask } from '../../main/core/agent.js';
import { readAnswer } from './answer-reading.js';
import { clearObstacles } from './obstacle-clearing.js';
import { failureFor } from './page-facts.js';
import { pageWorld } from './page-world.js';
import { inPage, untilAborted, type FlowContext } from './flow-context.js';
import { learnFinish, stopUnlessCollected, waitUntilReady, watchNewTurn, type FinishMemory } from './flow.js';

/** How long a page reopened as the collection ends may take to show its Stop control. */
const STOP_SHOWS_MS = 5_000;

/**
 * The answer, once the reopened page shows it finished. Throws what the page shows instead
 * (a wall, a limit: as a run would), or a `timed_out` failure when it shows no answer after
 * the prompt; the collection's own time is the context's signal's (aborted: Stop is pressed, the
 * job is over).
 */
export async function collectAnswer(ctx: FlowContext, task: Pick<CollectTask, 'sent' | 'label'>, memory: FinishMemory = { markerSeen: false }): Promise<AgentResult> {
  const { page, site } = ctx;
  const { conversation, turnsBefore } = task.sent;
  ctx.notes({ level: 'info', message: `reopening a ${site.name} conversation to collect the answer to a prompt sent earlier; nothing is sent.` });
  try {
    await inPage(ctx, page.goto(conversation, { waitUntil: 'domcontentloaded' }));
    await waitUntilReady(ctx);
  } catch (error) {
    // Ended while the page loads (its waits follow the signal): the answer is still being
    // written on the site, so it is stopped as any other end of the collection stops it, once
    // the reopened page shows its Stop control.
    if (ctx.signal.aborted) await stopUnlessCollected(ctx, STOP_SHOWS_MS);
    throw error;
  }
  // The turns before the prompt's are history; a page that shows no more has not the answer (yet).
  const shown = await pageWorld(page).run((h, [json, before]) => h.markTurns(h.pack(json), before), [ctx.pack, turnsBefore] as const);
  // A stop's cut leaves it answering for the next run to collect (CUT_TO_COLLECT); any other end presses Stop.
  const outcome = await untilAborted(ctx, watchNewTurn(ctx, memory), () => stopUnlessCollected(ctx));
  ctx.signal.throwIfAborted();
  if (outcome.kind === 'missing') {
    throw new AgentFailure('timed_out', `${site.name}: the conversation reopened shows no answer after the prompt (${shown} assistant turns, ${turnsBefore} before it).`);
  }
  if (outcome.kind !== 'finished') throw failureFor(outcome, site);
  const finish = learnFinish(ctx, outcome, memory, task.label);
  await clearObstacles(ctx);
  const text = await readAnswer(ctx);
  if (text.trim() === '') throw new AgentFailure('timed_out', `${site.name}: the answer in the conversation reopened reads empty.`);
  return { text, conversation: page.url(), modelUsed: outcome.modelUsed, finish };
}
