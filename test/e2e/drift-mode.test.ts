/**
 * The simulator's drift mode (agents/simulator/client/drift.ts) on every provider's page,
 * in real Chromium, without ChatBridge: each kind really changes what it says it changes,
 * and a person can still use the drifted page. A person holds the same two-question
 * conversation on three pages of each site: as built, with its test ids and classes
 * renamed, and with everything else drifted at once (labels, wrappers, no copy controls,
 * unmounted turns, the promo dialog, the finished signal unnamed), and the pages are compared.
 * Whether ChatBridge's packs survive each kind is test/drift/ (npm run test:drift).
 */
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { GERMAN } from '../../agents/simulator/client/drift-german.js';
import type { DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { PROVIDERS, type Provider } from '../../main/core/providers.js';
import { openDriftPage, PERSON, type DriftPage } from '../support/sim-page.js';
import { until } from '../support/until.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

const QUESTIONS = ['First question [[sim:ms=150]]', 'Second question [[sim:ms=150]]'];
const RENAMED: DriftKind[] = ['testids', 'classes'];
const RESHAPED: DriftKind[] = ['labels', 'wrappers', 'no-copy', 'unmount', 'dialog', 'no-finish'];
/** English names of the controls an agent acts on: none may survive the `labels` drift. */
const ENGLISH_CONTROL_WORDS = /\b(send|submit|stop|copy|retry|try again|regenerate|close|got it|dismiss|message|new chat|share|search|edit)\b/i;
const BUILD_HASH = /^_[0-9a-z]{7}$/;

/** What the tests compare between the pages. */
interface Snapshot {
  testIds: string[];
  classes: string[];
  ids: string[];
  labels: string[];
  text: string;
  lang: string;
  /** Controls (outside editors), and how many of them are their parent's only child. */
  controls: number;
  controlsAlone: number;
  /** How deep in the page the first answer's "You asked:" line sits. */
  answerDepth: number;
}

function snapshot(page: Page): Promise<Snapshot> {
  return page.evaluate(() => {
    const all = Array.from(document.querySelectorAll('*'));
    const values = (attrs: string[]) => all.flatMap((el) => attrs.map((a) => el.getAttribute(a)).filter((v): v is string => v !== null));
    const labels = values(['aria-label', 'title', 'placeholder', 'aria-placeholder', 'data-placeholder', 'alt', 'mattooltip']);
    for (const el of document.querySelectorAll('button, a, [role="button"], [role="tab"], [role="radio"]')) {
      const text = (el.textContent ?? '').trim();
      if (text) labels.push(text);
    }
    const controls = Array.from(document.querySelectorAll('button, [role="button"], textarea, [contenteditable="true"]')).filter(
      (el) => !el.parentElement?.closest('[contenteditable="true"]'),
    );
    const asked = all.find((el) => el.tagName === 'P' && el.textContent === 'You asked:');
    // The page's words but the sidebar's chat titles (chat-titles.ts), which hold a first question of their own.
    const page = document.body.cloneNode(true) as HTMLElement;
    page.querySelector('nav[aria-label="Chat history"]')?.remove();
    let depth = 0;
    for (let el: Element | null = asked ?? null; el; el = el.parentElement) depth++;
    return {
      testIds: values(['data-testid', 'data-test-id']),
      classes: values(['class']).flatMap((c) => c.split(/\s+/).filter(Boolean)),
      ids: values(['id']),
      labels,
      text: page.textContent ?? '',
      lang: document.documentElement.lang,
      controls: controls.length,
      controlsAlone: controls.filter((el) => el.parentElement!.children.length === 1).length,
      answerDepth: depth,
    };
  });
}

/** One site's three pages after the same conversation: what the tests look at. */
interface Visit {
  logs: { sends: unknown[][]; finishes: number }[];
  errors: string[];
  before: Snapshot;
  afterRename: Snapshot;
  afterReshape: Snapshot;
  plainShot: Buffer;
  renamedShot: Buffer;
  /** What the person met on the page with the promo dialog. */
  dialog: { atLoad: boolean; blockedTheComposer: boolean; shownAfterAnswers: number };
  /** Everything a person can press, pressed once the conversation is over: what reached the clipboard. */
  copiedPlain: string[];
  copiedReshaped: string[];
}

async function visit(browser: Browser, provider: Provider): Promise<Visit> {
  const name = SIM_SITES[provider].name;
  const dialog = { atLoad: false, blockedTheComposer: false, shownAfterAnswers: 0 };

  /** The questions, each answered before the next; with the dialog drift, the promo closed first (Escape or "Got it", in turns). */
  const converse = async (p: DriftPage, promo = false) => {
    for (const [i, question] of QUESTIONS.entries()) {
      if (promo) {
        const modal = p.page.locator('[role="dialog"][aria-modal="true"]');
        await modal.waitFor({ timeout: 10_000 }).catch(() => {
          throw new Error(`${name}: no promo dialog before question ${i + 1}`);
        });
        if (i === 0) {
          dialog.atLoad = true;
          // What a click on the composer's middle would land on, and whether it could take the focus.
          const composer = await p.find(PERSON[provider].composer);
          dialog.blockedTheComposer = await composer.evaluate((el) => {
            const box = el.getBoundingClientRect();
            const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
            return !el.contains(hit) && el.closest('[inert]') !== null;
          });
        } else dialog.shownAfterAnswers++;
        if (i % 2 === 0) await p.page.keyboard.press('Escape');
        else await modal.locator('button').last().click();
        await modal.waitFor({ state: 'detached', timeout: 10_000 });
      }
      const finished = p.sim.log.finishes.length;
      await p.ask(question);
      await until(() => p.sim.log.finishes.length > finished, 15_000, `${name} to answer`);
    }
    // The last answer's actions fade in on some sites (a CSS transition): let them end.
    await p.page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
  };

  const pressEverything = async (p: DriftPage) => {
    if (await p.page.locator('[role="dialog"][aria-modal="true"]').count()) await p.page.keyboard.press('Escape');
    await p.page.evaluate(() => {
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('button, [role="button"]'))) el.click();
    });
  };
  /**
   * Every control pressed on both pages, the drifted one first; copy handlers write to the
   * clipboard asynchronously, so the plain page's copies are awaited before either is read.
   */
  const pressBoth = async (plain: DriftPage, reshaped: DriftPage) => {
    await pressEverything(reshaped);
    await pressEverything(plain);
    await until(async () => (await plain.clipboard()).length > 0, 15_000, 'the plain page to copy');
    return { copiedPlain: await plain.clipboard(), copiedReshaped: await reshaped.clipboard() };
  };

  const [plain, renamed, reshaped] = await Promise.all([
    openDriftPage(browser, provider),
    openDriftPage(browser, provider, { drift: RENAMED }),
    openDriftPage(browser, provider, { drift: RESHAPED }),
  ]);
  try {
    await Promise.all([converse(plain), converse(renamed), converse(reshaped, true)]);
    const [before, afterRename, afterReshape] = await Promise.all([plain, renamed, reshaped].map((p) => snapshot(p.page)));
    const [plainShot, renamedShot] = await Promise.all([plain, renamed].map((p) => p.page.screenshot({ fullPage: true, animations: 'disabled' })));
    return {
      logs: [plain, renamed, reshaped].map((p) => ({ sends: p.sim.log.sends.map((s) => [s.prompt, s.kind, s.turn]), finishes: p.sim.log.finishes.length })),
      errors: [plain, renamed, reshaped].flatMap((p) => p.errors),
      before: before!,
      afterRename: afterRename!,
      afterReshape: afterReshape!,
      plainShot: plainShot!,
      renamedShot: renamedShot!,
      dialog,
      ...(await pressBoth(plain, reshaped)),
    };
  } finally {
    await Promise.all([plain, renamed, reshaped].map((p) => p.close()));
  }
}

// Two sites at a time (six pages): the pages mostly wait on their simulated answers.
const visits = new Map<Provider, Visit>();
beforeAll(async () => {
  const browser = await takeTestBrowser();
  try {
    for (let i = 0; i < PROVIDERS.length; i += 2) {
      await Promise.all(PROVIDERS.slice(i, i + 2).map(async (provider) => visits.set(provider, await visit(browser, provider))));
    }
  } finally {
    await giveBackTestBrowser(browser);
  }
}, 90_000);

for (const provider of PROVIDERS) {
  const name = SIM_SITES[provider].name;

  describe(`${name}: drift mode`, () => {
    let v: Visit;
    beforeAll(() => {
      v = visits.get(provider)!;
    });

    it('the drifted pages answer as the plain one does: the same sends, turns and finishes in the log, no page errors', () => {
      const [plain, renamed, reshaped] = v.logs;
      expect(renamed).toEqual(plain);
      expect(reshaped).toEqual(plain);
      expect(plain!.finishes).toBe(QUESTIONS.length);
      expect(v.errors).toEqual([]);
    });

    it('testids: no test id of the site is left, each one renamed rather than removed', () => {
      const original = new Set(v.before.testIds);
      expect(v.afterRename.testIds.filter((id) => original.has(id))).toEqual([]);
      expect(v.afterRename.testIds.length).toBe(v.before.testIds.length);
    });

    it('classes: every class name and id is a build hash (but a code block language)', () => {
      expect(v.before.classes.length).toBeGreaterThan(0);
      expect(v.afterRename.classes.filter((c) => !BUILD_HASH.test(c) && !/^language-/.test(c))).toEqual([]);
      expect(v.afterRename.ids.filter((id) => !BUILD_HASH.test(id))).toEqual([]);
      expect(v.afterRename.classes.length).toBe(v.before.classes.length);
    });

    it('testids and classes: the page looks exactly as before (its styles follow the new names)', () => {
      expect(v.renamedShot.equals(v.plainShot)).toBe(true);
    });

    it('labels: German names and control texts, no English name of a control left', () => {
      expect(v.afterReshape.lang).toBe('de');
      const after = new Set(v.afterReshape.labels);
      const kept = [...new Set(v.before.labels)].filter((label) => after.has(label) && ENGLISH_CONTROL_WORDS.test(label));
      expect(kept).toEqual([]);
      const german = new Set(Object.values(GERMAN));
      expect(v.afterReshape.labels.filter((label) => german.has(label)).length).toBeGreaterThan(0);
    });

    it('wrappers: every control sits alone in an extra element, and the answer one level deeper', () => {
      expect(v.afterReshape.controls).toBeGreaterThan(0);
      expect(v.afterReshape.controlsAlone).toBe(v.afterReshape.controls);
      expect(v.before.controlsAlone).toBeLessThan(v.before.controls);
      expect(v.afterReshape.answerDepth).toBeGreaterThan(v.before.answerDepth);
    });

    it('no-copy: no control copies anything (on the plain page, the answer is copied)', () => {
      expect(v.copiedPlain).toContain(simulatedAnswer(name, provider, QUESTIONS[1]!, 2));
      expect(v.copiedReshaped).toEqual([]);
    });

    it('unmount: the transcript keeps only the newest turns', () => {
      expect(v.before.text).toContain('First question');
      expect(v.afterReshape.text).not.toContain('First question');
      expect(v.afterReshape.text).toContain('Second question');
      // Monaco code blocks (Qwen) show spaces as no-break spaces.
      expect(v.afterReshape.text.replace(/\u00a0/g, ' ')).toContain(`${provider} turn 2`);
    });

    it('dialog: a modal promo on load that takes the clicks, closed by Escape or "Got it", back after every answer', () => {
      expect(v.dialog).toEqual({ atLoad: true, blockedTheComposer: true, shownAfterAnswers: QUESTIONS.length - 1 });
    });
  });
}

