/**
 * ChatGPT's file controls (sim-markup.md; the 2026-02 and 2026-05 captures, research
 * 2026-11-28): the "+" button's menu, "Upload from computer" opening the form's generic input
 * (no accept; no id in the app-shell layouts, as in the 2026-02 capture), the two image-only
 * inputs outside the form, file tiles with a remove button, and a toast for refusals.
 */
import { el } from '../dom.js';
import { extensionOf, fileInput, popupMenu, sendBlocker, transientNotice } from '../attachments.js';
import type { AttachLook } from '../skin.js';

export const chatgptAttach: AttachLook = {
  mount(ui, attach) {
    const form = ui.composer.element.closest('form')!;
    const appShell = window.__SIM_BOOT.layout.startsWith('app-shell');
    const hiddenStyle = 'border:0;clip:rect(0,0,0,0);clip-path:inset(50%);height:1px;margin:0 -1px -1px 0;overflow:hidden;padding:0;position:absolute;width:1px;white-space:nowrap';
    const generic = fileInput({ multiple: '', tabindex: '-1', style: hiddenStyle, ...(appShell ? {} : { id: 'upload-files' }) }, attach);
    // The app-shell build carries no test ids (chatgpt-app-shell.ts): the button keeps its id only.
    const plus = el('button', { type: 'button', id: 'composer-plus-btn', ...(appShell ? {} : { 'data-testid': 'composer-plus-btn' }), 'aria-label': 'Add files and more', 'aria-haspopup': 'menu', 'aria-expanded': 'false', class: 'composer-btn' }, '+');
    popupMenu(plus, () => {
      const item = el('div', { role: 'menuitem', tabindex: '-1', class: 'group __menu-item' }, 'Upload from computer');
      item.addEventListener('click', () => generic.click());
      return el('div', { role: 'menu', 'data-radix-menu-content': '', class: 'popover' }, item);
    });
    const chips = el('div', { class: 'flex flex-wrap gap-2 composer-attachments' });
    form.prepend(chips, el('div', { class: 'hidden' }, generic));
    // At the composer's leading edge, right after the editor, before the skin's own buttons.
    ui.composer.element.after(plus);
    // The image-only inputs beside the form (the photo picker, the camera).
    form.after(
      fileInput({ class: 'sr-only select-none', tabindex: '-1', 'aria-hidden': 'true', id: 'upload-photos', accept: 'image/*', multiple: '' }, attach),
      fileInput({ class: 'sr-only select-none', tabindex: '-1', 'aria-hidden': 'true', id: 'upload-camera', accept: 'image/*', capture: 'environment', multiple: '' }, attach),
    );
    const send = ui.sendButton as HTMLButtonElement;
    return {
      chips,
      chip(name, _bytes, position) {
        const remove = el('button', { type: 'button', 'aria-label': `Remove file ${position}: ${name}`, class: 'file-tile-remove' }, '×');
        const element = el('div', { role: 'group', 'aria-label': name, title: name, class: 'group/file-tile' }, el('div', { class: 'truncate font-semibold' }, name), el('div', { class: 'truncate text-token-text-secondary' }, extensionOf(name)), remove);
        return { element, remove };
      },
      notice: transientNotice((text) => {
        const toast = el('div', { role: 'alert', 'data-testid': 'toast', class: 'toast-root' }, text);
        document.body.append(toast);
        return toast;
      }),
      dropZone: document.body,
      blockSend: sendBlocker(
        () => (send.disabled = true),
        () => (send.disabled = false),
      ),
    };
  },
};
