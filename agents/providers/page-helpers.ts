/**
 * Code that runs inside the provider's page, in a JavaScript world of its own (page-world.ts)
 * that the page's scripts cannot reach, as that world's `window.__chatbridge`.
 * `PAGE_HELPERS_SCRIPT` is run in each document before any page script. It is built from
 * the modules in page-helpers/, each a function serialised with Function.prototype.toString:
 * a module may not use anything from its file's scope (types aside), and reaches the other
 * modules' members only through the shared object it is given.
 *
 * - cues.ts: finds a role's element by the pack's cues (CSS, text, accessible name),
 *   reporting which cue matched; path.ts: where an element sits, for Playwright to act on it;
 * - clipboard.ts: a copy made with execCommand, caught from its event (a copy through the
 *   clipboard API is caught in the page's own world: copy-hook.ts);
 * - turns.ts: the assistant turns present before a prompt is sent, the first new one, the
 *   roles within a turn's scope; watch.ts watches the new turn until it ends; answer-look.ts
 *   tells an answer that is not text, where its Copy is, and the model the page names;
 * - obstacles.ts: what ends a job at the page level, and what stands in the way before
 *   acting (modal dialogs, overlays, an A/B chooser, a mode toggle), for the flow to clear;
 *   conversation.ts: what belongs to the conversation (turns, chat titles), where no notice is read;
 * - attachments.ts: the caller's files in the composer (the file input, chips, refusals), and a paste card told from them;
 * - markdown.ts: an answer's DOM as Markdown, when no copy control is usable;
 * - scrub.ts, blur.ts: the page's HTML and a screenshot as a diagnostic bundle may show them.
 */
import { addAnswerLook } from './page-helpers/answer-look.js';
import { addAttachments } from './page-helpers/attachments.js';
import { addClipboard } from './page-helpers/clipboard.js';
import { addBlur } from './page-helpers/blur.js';
import { addConversation } from './page-helpers/conversation.js';
import { addCues } from './page-helpers/cues.js';
import { addMarkdown } from './page-helpers/markdown.js';
import { addObstacles } from './page-helpers/obstacles.js';
import { addPath } from './page-helpers/path.js';
import { addScrub } from './page-helpers/scrub.js';
import { addTurns } from './page-helpers/turns.js';
import type { HelperModule } from './page-helpers/types.js';
import { addWatch } from './page-helpers/watch.js';

export type { InTheWay, MissingRole, Obstacle, PageHelpers, Rect, TurnOutcome, TurnProblem, ViewportPoint, WatchLimits } from './page-helpers/types.js';

const MODULES: readonly HelperModule[] = [addCues, addClipboard, addTurns, addConversation, addWatch, addAnswerLook, addObstacles, addMarkdown, addScrub, addBlur, addPath, addAttachments];

/** The page helpers as one script: installed once per page, the object published when every module has added its part. */
export const PAGE_HELPERS_SCRIPT = `(() => {
  if (window.__chatbridge) return;
  const helpers = {};
${MODULES.map((module) => `  (${module.toString()})(helpers);`).join('\n')}
  window.__chatbridge = helpers;
})();`;
