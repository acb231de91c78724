/**
 * DeepSeek's file controls (sim-markup.md; research 2026-11-28): the skin's attach button and
 * the input right before the send button, taking the accepted types; cards with the name, the
 * type and size, and a remove button labelled in Chinese as on every DeepSeek page; the hint
 * that only the text is read; refusals in a toast.
 */
import { el } from '../dom.js';
import type { FileSlots } from '../skin.js';
import { DEEPSEEK_EXTENSIONS } from '../file-types.js';
import { extensionOf, sendBlocker, transientNotice, wireInput } from '../attachments.js';
import type { AttachLook } from '../skin.js';

export const deepseekAttach: AttachLook = {
  mount(ui, attach) {
    const textarea = ui.composer.element;
    const box = textarea.parentElement!;
    const { input, button, send } = ui.fileSlots as Required<FileSlots>;
    input.setAttribute('accept', DEEPSEEK_EXTENSIONS.split(' ').map((ext) => `.${ext}`).join(','));
    wireInput(input, attach);
    button.classList.add('ds-button--iconLabelPrimary');
    button.addEventListener('click', () => input.click());
    const chips = el('div', { class: 'ds-attachments', style: 'display:flex;flex-wrap:wrap;gap:8px' });
    const hint = el('div', { class: 'ds-attachment-hint', style: 'display:none' }, '仅识别附件中的文字');
    textarea.before(chips, hint);
    return {
      chips,
      chip(name, bytes) {
        const remove = el('div', { role: 'button', tabindex: '0', 'aria-label': `移除附件 ${name}`, class: 'ds-icon-button' }, '×');
        const element = el('div', { class: 'ds-attachment _8d7e1b2', title: name }, el('div', { class: 'ds-attachment-name' }, name), el('div', {}, `${extensionOf(name)} ${(bytes / 1024).toFixed(2)}KB`), remove);
        return { element, remove };
      },
      notice: transientNotice((text) => document.body.appendChild(el('div', { class: 'ds-toast', role: 'alert' }, text))),
      dropZone: box,
      // The slot is painted anew with each mode: nothing to give back.
      blockSend: sendBlocker(
        () => {
          send.classList.add('ds-button--disabled');
          send.setAttribute('aria-disabled', 'true');
        },
        () => {},
      ),
      changed(count) {
        hint.style.display = count > 0 ? '' : 'none';
      },
    };
  },
};
