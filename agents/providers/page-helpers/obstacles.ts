/**
 * In the page: what ends a job at the page level (a challenge, an account lock, a login
 * wall, a limit notice, whether the pack knows its markup or only its words say it), never
 * read from the conversation (conversation.ts), and what stands in the way before acting
 * (modal dialogs, overlays, an A/B chooser, a mode toggle), for the flow to clear.
 */
import type { PagePack } from '../site.js';
import type { Accept, Helpers, Obstacle, TurnProblem } from './types.js';

export function addObstacles(h: Helpers): void {
  /**
   * A Cloudflare interstitial, recognised by the page rather than by its widget (the
   * Turnstile frame sits in a closed shadow root): its title, its `_cf_chl_opt` settings,
   * or its challenge-platform resources on a page that has no composer. A normal page may
   * load an invisible Turnstile or Cloudflare's bot scripts; those have the composer.
   */
  const cloudflare = (pack: PagePack): TurnProblem | null => {
    const title = document.title.trim();
    // A chat takes its prompt for the tab's title ("Just a moment, …"): an interstitial shows
    // neither a composer nor a conversation.
    const byTitle =
      /^(just a moment|verifying|attention required|un instant|einen moment|un momento|um momento|один момент|请稍候|しばらくお待ちください)/i.test(title) &&
      !h.find(pack.composer) &&
      !h.showsConversation(pack);
    // Its settings object is a global of the page's own world, out of the helpers' sight: its script's text says it.
    const byScript = Array.from(document.scripts).some((script) => !script.src && /\b_?cf_chl_opt\b/.test(script.text.slice(0, 2_000)));
    const byResource =
      !!document.querySelector('script[src*="/cdn-cgi/challenge-platform/"], form[action*="__cf_chl"], iframe[src*="challenges.cloudflare.com"]') &&
      !h.find(pack.composer);
    return byTitle || byScript || byResource ? { kind: 'challenge', text: title || 'Cloudflare challenge' } : null;
  };

  /**
   * What a notice says when it is about the account, in any language an account is likely to
   * see, whatever the pack's cues know of its markup: a dialog or a layer over the composer
   * with these words is a limit or a lock to heed, never something to close and send through
   * (closing a limit and sending again is what escalates to a locked account).
   */
  const LIMIT_WORDS =
    /too many requests|making requests too quickly|temporarily limited|(?:usage|message|rate|daily|hourly) (?:limit|cap)|limit (?:reached|resets|will reset)|reached (?:your|the) limit|hit your limit|out of (?:free messages|extra usage)|try again (?:later|after|in \d)|nutzungslimit|limite d.utilisation|l[íi]mite de uso|лимит|(?:使用|用量|次数)(?:上限|限制)|利用上限/i;
  const LOCK_WORDS =
    /suspicious activity|someone else may be using your|secure your account|account (?:has been |is )?(?:locked|suspended|disabled|deactivated)|verdächtige aktivität|activité suspecte|actividad sospechosa|atividade suspeita|подозрительн|可疑活动|不審なアクティビティ/i;

  /** The open dialogs, and the layer over the composer (if one covers it). */
  const layersOver = (pack: PagePack): Element[] => {
    const layers = Array.from(document.querySelectorAll(`${MODAL}, [aria-modal="true"]`)).filter(h.visible);
    const composer = h.find(pack.composer);
    const cover = composer && coveredBy(composer);
    if (cover) layers.push(overlayLayer(cover, composer));
    return layers;
  };

  /** Walls and locks that a fresh page of the site did not show (`acquit`): part of this page, not notices. */
  const acquitted = new WeakSet<Element>();
  /**
   * Whether `el` is in a dialog that blocks the page, or in the layer over the composer: no
   * title nor answer is. A wall or a lock anywhere else may be the page's own words: a fresh
   * page must show one too, unless this is one (`confirm`, fresh-page.ts).
   */
  const blocksPage = (pack: PagePack, el: Element): boolean => el.closest(`${MODAL}, [aria-modal="true"]`) !== null || layersOver(pack).some((l) => l.contains(el));

  h.blocker = (pack) => {
    const challenge = cloudflare(pack);
    if (challenge) return challenge;
    const conversation = h.conversation(pack);
    const outside: Accept = (el, cue) => !acquitted.has(el) && conversation.beside(el, cue);
    for (const role of ['challenge', 'accountLock', 'loginWall', 'limitBanner'] as const) {
      const el = h.find(pack[role], document, outside);
      if (!el) continue;
      const problem: TurnProblem = { kind: role, text: h.textOf(el) };
      return (role === 'accountLock' || role === 'loginWall') && !blocksPage(pack, el) ? { ...problem, confirm: true } : problem;
    }
    const layers = layersOver(pack).filter((l) => !acquitted.has(l) && !conversation.holds(l));
    for (const [kind, words] of [['accountLock', LOCK_WORDS], ['limitBanner', LIMIT_WORDS]] as const) {
      const layer = layers.find((l) => words.test(conversation.wordsBeside(l)));
      if (layer) return { kind, text: h.textOf(layer) };
    }
    return null;
  };

  h.acquit = (pack) => {
    const conversation = h.conversation(pack);
    for (const role of ['accountLock', 'loginWall'] as const) {
      for (const cue of pack[role] ?? []) {
        for (const el of h.findAll(cue, document)) if (!conversation.holds(el) && !blocksPage(pack, el)) acquitted.add(el);
      }
    }
  };

  const MODAL = '[role="dialog"][aria-modal="true"], [role="alertdialog"], dialog[open]';
  const CLOSE_NAME = /^\s*(?:close|dismiss|got it|not now|maybe later|no thanks|ok(?:ay)?|schließen|verstanden|nicht jetzt|fermer|compris|pas maintenant|cerrar|entendido|ahora no|fechar|agora não|закрыть|понятно|не сейчас|关闭|知道了|閉じる|了解|×|✕)\s*$/i;

  const openDialog = (): Element | null => Array.from(document.querySelectorAll(MODAL)).find(h.visible) ?? null;

  const selected = (el: Element) =>
    ['aria-pressed', 'aria-selected', 'aria-checked'].some((a) => el.getAttribute(a) === 'true') ||
    /^(on|active|checked|selected)$/.test(el.getAttribute('data-state') ?? '');

  /** Whether `el` or an ancestor is taken out of the flow to sit over the page (what an overlay is). */
  const floating = (el: Element): boolean => {
    for (let at: Element | null = el; at && at !== document.body; at = at.parentElement) {
      const position = window.getComputedStyle(at).position;
      if (position === 'fixed' || position === 'absolute' || position === 'sticky') return true;
    }
    return false;
  };

  /**
   * What sits on top of `el` near its top edge, if that is a floating layer that is
   * neither `el`, inside it, nor around it. An element scrolled out of view is not judged.
   */
  const coveredBy = (el: Element): Element | null => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return null;
    const x = box.left + box.width / 2;
    const y = box.top + Math.min(box.height / 2, 20);
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return null;
    const top = document.elementFromPoint(x, y);
    if (!top || top === el || el.contains(top) || top.contains(el)) return null;
    return floating(top) ? top : null;
  };

  /** A dialog's name for a log line: its label or heading, never its body (which could quote the conversation). */
  const dialogName = (dialog: Element): string =>
    (dialog.getAttribute('aria-label') ?? dialog.querySelector('h1, h2, h3, [role="heading"]')?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80);

  /** The outermost element of what covers `composer`: where its own close control would be. */
  const overlayLayer = (cover: Element, composer: Element): Element => {
    let layer = cover;
    while (layer.parentElement && layer.parentElement !== document.body && !layer.parentElement.contains(composer)) layer = layer.parentElement;
    return layer;
  };

  /**
   * What stands in the way on a page that shows no blocker. The blockers' cues are the
   * costliest look of all (up to 4 ms a look on a captured Claude page, 2026-11-30:
   * bench/page-looks.ts): looked for once per call, not once more here.
   */
  const obstacleWithoutBlocker = (pack: PagePack): Obstacle | null => {
    if (h.find(pack.preferFirst)) return { kind: 'chooser', text: '' };
    const mode = h.find(pack.chatMode);
    if (mode && !selected(mode)) return { kind: 'mode', text: h.accessibleName(mode).slice(0, 40) };
    const dialog = openDialog();
    if (dialog) return { kind: 'dialog', text: dialogName(dialog) };
    const composer = h.find(pack.composer);
    const cover = composer && coveredBy(composer);
    if (cover) return { kind: 'overlay', text: '' };
    return null;
  };

  h.inTheWay = (pack, problem = h.blocker(pack)) => {
    if (problem) return { problem, obstacle: null };
    const obstacle = obstacleWithoutBlocker(pack);
    return obstacle ? { problem: null, obstacle } : null;
  };

  // A login wall or a challenge is not in the way: it is the answer to report.
  h.obstacle = (pack) => (h.blocker(pack) ? null : obstacleWithoutBlocker(pack));

  const dialogClose = (pack: PagePack, dialog: Element): Element | null =>
    h.find(pack.dialogClose, dialog) ??
    Array.from(dialog.querySelectorAll('button, [role="button"], a[href="#"]')).find((b) => h.visible(b) && CLOSE_NAME.test(h.accessibleName(b))) ??
    null;

  h.obstacleControl = (pack, o) => {
    switch (o.kind) {
      case 'chooser':
        return h.find(pack.preferFirst);
      case 'mode':
        return h.find(pack.chatMode);
      case 'dialog': {
        const dialog = openDialog();
        return dialog && dialogClose(pack, dialog);
      }
      case 'overlay': {
        const composer = h.find(pack.composer);
        const cover = composer && coveredBy(composer);
        return cover ? dialogClose(pack, overlayLayer(cover, composer)) : null;
      }
    }
  };
}
