/**
 * The answer's pieces as the page renders them (AgentTask.onDelta), told only when sure.
 *
 * While the turn is watched, the page is read every `FOLLOW_MS` as the final answer is read
 * (page-helpers: settledAnswer), keeping only the blocks the page has finished with: the last
 * block may still grow, and a block only a click reads exactly (an editor's code) is left for
 * the end. A reading is told once the next one agrees (a renderer that re-parses as it goes
 * may redraw a block once), and only what extends what was told: should the page ever take
 * back what it showed, nothing more is told, and the rest of the answer comes whole at the
 * end (main/service: the service tells what the pieces did not cover).
 */
import { inPage, pause, type FlowContext } from './flow-context.js';
import { pageWorld } from './page-world.js';

/** How often the rendering answer is read: a piece reaches a follower within about two of these. */
export const FOLLOW_MS = 250;

export interface AnswerFollower {
  /** Stops reading at once: a reading under way is left, and tells nothing. */
  stop(): Promise<void>;
}

/** Follows the new turn's answer on `ctx`'s page, telling `tell` each new sure piece, until stopped or the signal aborts. */
export function followAnswer(ctx: FlowContext, tell: (text: string) => void): AnswerFollower {
  const stopping = new AbortController();
  const waits = { pageTime: ctx.pageTime, signal: AbortSignal.any([ctx.signal, stopping.signal]) };
  const read = () => pageWorld(ctx.page).run((h, json) => h.settledAnswer(h.pack(json)), ctx.pack);
  const loop = async () => {
    let told = '';
    let last = '';
    for (;;) {
      await pause(waits, FOLLOW_MS);
      // The page moving on under a read: the next one tells.
      const now = await inPage(waits, read().catch(() => null));
      if (now === null || now !== last) {
        last = now ?? '';
        continue;
      }
      if (now.startsWith(told)) {
        if (now.length > told.length) tell(now.slice(told.length));
        told = now;
      } else if (!told.startsWith(now)) {
        return; // the page took back what it showed: nothing more is sure
      }
    }
  };
  const done = loop().catch(() => {}); // ends on the signals' abort, thrown by a wait
  return {
    async stop() {
      stopping.abort();
      await done;
    },
  };
}
