/**
 * Notices about the account rather than the page, as ChatGPT shows them (research
 * 2026-11-26): the account-wide "Too many requests" modal with its one "Got it", and the
 * "Suspicious activity detected" lock that repeated throttling escalates to, and the product
 * announcement ("beacon") whose primary "Get started" opts the account into the feature, with
 * a close button beside it. Each sits over everything with a backdrop that takes every click;
 * while one shows, the page sends nothing. Each can be dismissed (as on the real site), and
 * the page reports each dismissal: a flow that closes a limit and sends again is what gets an
 * account locked, and one that presses "Get started" changes the account.
 */
import { el } from './dom.js';

export type AccountNoticeKind = 'rate-limit' | 'lock' | 'beacon';

const BACKDROP_STYLE = 'position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:2147483500';
const PANEL_STYLE =
  'position:fixed;top:50%;left:50%;transform:translate(-50%,-50%);z-index:2147483501;background:#fff;' +
  'border-radius:12px;padding:20px 24px;width:min(440px,90vw);font:15px system-ui,sans-serif';

/** A notice's words; `close`: an icon-only close button as well (`data-testid="close-button"`, named "Close"). */
const WORDS: Record<AccountNoticeKind, { testid: string; title: string; body: string; buttons: string[]; close?: boolean }> = {
  'rate-limit': {
    testid: 'modal-conversation-history-rate-limit',
    title: 'Too many requests',
    body: "You're making requests too quickly. We've temporarily limited access to your conversations to protect your data. Please wait a few minutes before trying again.",
    buttons: ['Got it'],
  },
  lock: {
    testid: 'modal-account-security',
    title: 'Suspicious activity detected',
    body: 'It looks like someone else may be using your ChatGPT account. Please secure your account to regain access to all features.',
    buttons: ['Secure my account', 'Not now'],
  },
  // Seen 2026-08-08 over a send (research 2026-11-26, #60794168989).
  beacon: {
    testid: 'modal-beacon',
    title: 'You now have access to Health in ChatGPT',
    body: 'Bring your health records and wellness apps together to get answers grounded in your own information.',
    buttons: ['Get started'],
    close: true,
  },
};

export interface AccountNotices {
  /** Whether a notice shows now (the page then refuses to send). */
  readonly open: boolean;
  show(kind: AccountNoticeKind): void;
}

export function accountNotices(onDismiss: (kind: AccountNoticeKind, button: string) => void): AccountNotices {
  let open: AccountNoticeKind | null = null;
  const show = (kind: AccountNoticeKind) => {
    if (open) return;
    const words = WORDS[kind];
    const backdrop = el('div', { style: BACKDROP_STYLE, 'aria-hidden': 'true' });
    const panel = el(
      'div',
      { role: 'dialog', 'aria-modal': 'true', 'data-testid': words.testid, id: words.testid, style: PANEL_STYLE },
      el('h2', { style: 'margin:0 0 8px' }, words.title),
      el('p', {}, words.body),
    );
    const dismiss = (button: string) => {
      backdrop.remove();
      panel.remove();
      document.removeEventListener('keydown', onKey, true);
      open = null;
      onDismiss(kind, button);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') dismiss('Escape');
    };
    if (words.close) {
      const close = el('button', { type: 'button', 'data-testid': 'close-button', 'aria-label': 'Close', style: 'position:absolute;top:8px;right:8px' }, '×');
      close.addEventListener('click', () => dismiss('Close'));
      panel.append(close);
    }
    for (const label of words.buttons) {
      const button = el('button', { type: 'button', style: 'margin:12px 8px 0 0' }, label);
      button.addEventListener('click', () => dismiss(label));
      panel.append(button);
    }
    document.addEventListener('keydown', onKey, true);
    document.body.append(backdrop, panel);
    open = kind;
  };
  return {
    get open() {
      return open !== null;
    },
    show,
  };
}
