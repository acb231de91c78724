/**
 * Claude's file controls (sim-markup.md; research 2026-11-28): the always-present input in
 * the composer's fieldset (its id names where the composer is: `-onpage` on a new chat,
 * `-bottom` in an open conversation), the "Add files, connectors, and more" menu, file
 * thumbnails, and refusals in the alert band beside the input.
 */
import { el } from '../dom.js';
import { fileInput, popupMenu, sendBlocker } from '../attachments.js';
import type { AttachLook } from '../skin.js';

export const claudeAttach: AttachLook = {
  mount(ui, attach) {
    const fieldset = ui.composer.element.closest('fieldset')!;
    const where = window.__SIM_BOOT.conversationId ? 'bottom' : 'onpage';
    const input = fileInput(
      { 'data-testid': 'file-upload', 'aria-label': 'Upload files', accept: '', multiple: '', id: `chat-input-file-upload-${where}`, class: 'absolute -z-10 h-0 w-0 overflow-hidden opacity-0 select-none' },
      attach,
    );
    const menu = el('button', { type: 'button', 'aria-label': 'Add files, connectors, and more', 'aria-haspopup': 'menu', 'aria-expanded': 'false' }, '+');
    popupMenu(menu, () => {
      const item = el('div', { role: 'menuitem', tabindex: '-1' }, 'Add files or photos');
      item.addEventListener('click', () => input.click());
      return el('div', { role: 'menu' }, item);
    });
    const band = el('div', { 'data-alert-band-wrapper': 'true' });
    const chips = el('div', { class: 'flex flex-wrap gap-2 file-thumbnails' });
    const toolbar = ui.sendButton.parentElement!;
    toolbar.prepend(input, menu);
    fieldset.prepend(band);
    ui.composer.element.parentElement!.before(chips);
    const send = ui.sendButton as HTMLButtonElement;
    return {
      chips,
      chip(name) {
        const remove = el('button', { type: 'button', 'aria-label': `Remove ${name}` }, '×');
        const element = el('div', { 'data-testid': 'file-thumbnail', title: name }, el('h3', { class: 'truncate' }, name), remove);
        return { element, remove };
      },
      notice(text) {
        band.replaceChildren(el('div', { role: 'status', 'aria-live': 'polite' }, text));
      },
      dropZone: fieldset,
      sent() {
        input.id = 'chat-input-file-upload-bottom';
      },
      blockSend: sendBlocker(
        () => {
          send.disabled = true;
          send.setAttribute('inert', '');
        },
        // The skin's own mode, just set, says whether Send is enabled.
        () => {},
      ),
    };
  },
};
