/**
 * The "what's new" promo a site shows over everything (drift kind `dialog`), built the way
 * the sites' dialog libraries build theirs (Radix and the like): an overlay that takes every
 * click, a `[role=dialog][aria-modal=true]` panel with a close control and a "Got it"
 * button, the rest of the page inert while it is open (no focus, no clicks, no keys), and
 * Escape to close it. Invented: the sites' own promos differ in words and markup, not in
 * how they block.
 */
import { el } from './dom.js';

const OVERLAY_STYLE = 'position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:2147483600';
const PANEL_STYLE =
  'position:fixed;top:50%;left:50%;transform:translate(-50%,-50%);z-index:2147483601;background:#fff;' +
  'border-radius:12px;padding:20px 24px;width:min(420px,90vw);box-shadow:0 8px 32px rgba(0,0,0,.25);font:15px system-ui,sans-serif';

export interface PromoDialog {
  /** Shows the dialog unless it is already open. */
  show(): void;
}

export function promoDialog(): PromoDialog {
  let open = false;

  const show = () => {
    if (open) return;
    const close = el('button', { type: 'button', 'aria-label': 'Close', style: 'position:absolute;top:8px;right:8px' }, '×');
    const gotIt = el('button', { type: 'button', style: 'margin-top:12px' }, 'Got it');
    const overlay = el('div', { 'data-state': 'open', style: OVERLAY_STYLE, 'aria-hidden': 'true' });
    const panel = el(
      'div',
      { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'whats-new-title', 'data-state': 'open', tabindex: '-1', style: PANEL_STYLE },
      close,
      el('h2', { id: 'whats-new-title', style: 'margin:0 0 8px' }, "What's new"),
      el('p', {}, 'Projects keep your chats, files and instructions together. Try one from the sidebar.'),
      gotIt,
    );
    const inerted = Array.from(document.body.children).filter((child) => !child.hasAttribute('inert'));
    for (const child of inerted) child.setAttribute('inert', '');
    document.body.append(overlay, panel);
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') dismiss();
    };
    const dismiss = () => {
      document.removeEventListener('keydown', onKey, true);
      overlay.remove();
      panel.remove();
      for (const child of inerted) child.removeAttribute('inert');
      open = false;
    };
    close.addEventListener('click', dismiss);
    gotIt.addEventListener('click', dismiss);
    document.addEventListener('keydown', onKey, true);
    open = true;
    close.focus();
  };

  return { show };
}
