/**
 * Code that runs inside the provider's page, as `window.__chatbridge`. `PAGE_HELPERS_SCRIPT`
 * is injected with Playwright's addInitScript before any page script runs. It is built from
 * the modules in page-helpers/, each a function serialised with Function.prototype.toString:
 * a module may not use anything from its file's scope (types aside), and reaches the other
 * modules' members only through the shared object it is given.
 *
 * - cues.ts: finds a role's element by the pack's cues (CSS, text, accessible name),
 *   reporting which cue matched;
 * - clipboard.ts: intercepts the page's clipboard writes, so the copy button hands us the
 *   provider's own Markdown without ever touching the user's real clipboard;
 * - turns.ts: the assistant turns present before a prompt is sent, the first new one, the
 *   roles within a turn's scope; watch.ts watches the new turn until it ends;
 * - obstacles.ts: what ends a job at the page level, and what stands in the way before
 *   acting (modal dialogs, overlays, an A/B chooser, a mode toggle), for the flow to clear;
 *   conversation.ts: what belongs to the conversation (turns, chat titles), where no notice is read;
 * - markdown.ts: an answer's DOM as Markdown, when no copy control is usable;
 * - conceal.ts: the page with the conversation blanked out, for a diagnostic bundle.
 */
import { addClipboard } from './page-helpers/clipboard.js';
import { addConcealment } from './page-helpers/conceal.js';
import { addConversation } from './page-helpers/conversation.js';
import { addCues } from './page-helpers/cues.js';
import { addMarkdown } from './page-helpers/markdown.js';
import { addObstacles } from './page-helpers/obstacles.js';
import { addTurns } from './page-helpers/turns.js';
import type { HelperModule } from './page-helpers/types.js';
import { addWatch } from './page-helpers/watch.js';

export type { MissingRole, Obstacle, PageHelpers, TurnOutcome, TurnProblem, WatchLimits } from './page-helpers/types.js';

const MODULES: readonly HelperModule[] = [addCues, addClipboard, addTurns, addConversation, addWatch, addObstacles, addMarkdown, addConcealment];

/** The page helpers as one script: installed once per page, the object published when every module has added its part. */
export const PAGE_HELPERS_SCRIPT = `(() => {
  if (window.__chatbridge) return;
  const helpers = {};
${MODULES.map((module) => `  (${module.toString()})(helpers);`).join('\n')}
  window.__chatbridge = helpers;
})();`;
