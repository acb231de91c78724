/**
 * Perplexity's file controls (sim-markup.md; the real page's input, research 2026-11-28): the
 * hidden input taking the real page's extensions beside "Add files or tools", whose menu
 * opens it; chips whose "Cancel upload" becomes "Remove <name>" once the file is in; refusals
 * in a toast.
 */
import { el } from '../dom.js';
import type { FileSlots } from '../skin.js';
import { PERPLEXITY_EXTENSIONS } from '../file-types.js';
import { popupMenu, sendBlocker, transientNotice, wireInput } from '../attachments.js';
import type { AttachLook } from '../skin.js';

export const perplexityAttach: AttachLook = {
  mount(ui, attach) {
    const { input, button } = ui.fileSlots as Required<FileSlots>;
    input.setAttribute('accept', PERPLEXITY_EXTENSIONS.split(' ').map((ext) => `.${ext}`).join(','));
    wireInput(input, attach);
    button.setAttribute('aria-haspopup', 'menu');
    button.setAttribute('aria-expanded', 'false');
    // The input sits beside its button.
    button.after(input);
    popupMenu(button, () => {
      const item = el('div', { role: 'menuitem', tabindex: '-1' }, 'Upload files');
      item.addEventListener('click', () => input.click());
      return el('div', { role: 'menu' }, item);
    });
    const chips = el('div', { class: 'flex flex-wrap gap-2 file-chips' });
    // The composer box: the editor's container's parent.
    const box = ui.composer.element.parentElement!.parentElement!;
    box.prepend(chips);
    const send = ui.sendButton;
    return {
      chips,
      chip(name) {
        const remove = el('button', { type: 'button', 'aria-label': 'Cancel upload' }, '×');
        const element = el('div', { 'data-testid': 'file-chip', title: name }, el('span', { class: 'truncate' }, name), ' ', remove);
        return { element, remove, finished: () => remove.setAttribute('aria-label', `Remove ${name}`) };
      },
      notice: transientNotice((text) => document.body.appendChild(el('div', { role: 'alert', 'data-testid': 'toast' }, text))),
      dropZone: box,
      // The skin leaves Submit alone while its mode stays 'ready': its state is ours to give back.
      blockSend: sendBlocker(
        () => {
          send.setAttribute('disabled', '');
          send.classList.add('pointer-events-none');
        },
        () => {
          send.removeAttribute('disabled');
          send.classList.remove('pointer-events-none');
        },
      ),
    };
  },
};
