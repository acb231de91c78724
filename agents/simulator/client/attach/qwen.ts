/**
 * Qwen's file controls (sim-markup.md; the 2026-05 real page, research 2026-11-28): the mode
 * select's dropdown trigger and the hidden `#filesUpload` input beside it, file cards with an
 * icon by extension, the chat content as drop zone (`#dropzone-container`), and refusals as
 * antd messages (the skin draws the mode select and the drop zone on every layout).
 */
import { el } from '../dom.js';
import type { FileSlots } from '../skin.js';
import { extensionOf, fileInput, sendBlocker, transientNotice } from '../attachments.js';
import type { AttachLook } from '../skin.js';

/** The card's icon class, by extension (invented names in the real page's `icon…1` pattern). */
const ICON: Record<string, string> = { TXT: 'icontxt1', MD: 'icontxt1', PDF: 'iconpdf1', PNG: 'iconimg1', JPG: 'iconimg1', JPEG: 'iconimg1', GIF: 'iconimg1', WEBP: 'iconimg1' };

export const qwenAttach: AttachLook = {
  mount(ui, attach) {
    const { modeSelect, dropZone } = ui.fileSlots as Required<FileSlots>;
    const input = fileInput({ id: 'filesUpload', multiple: '', style: 'display:none' }, attach);
    const trigger = el('span', { class: 'ant-dropdown-trigger', role: 'button', 'aria-label': 'Upload files' }, '+');
    trigger.addEventListener('click', () => input.click());
    modeSelect.append(trigger, input);
    const chips = el('div', { class: 'fileitem-list' });
    modeSelect.parentElement!.before(chips);
    const send = ui.sendButton as HTMLButtonElement;
    return {
      chips,
      chip(name) {
        const remove = el('button', { type: 'button', 'aria-label': `Remove ${name}`, class: 'fileitem-remove' }, '×');
        const element = el('div', { class: 'fileitem-btn', title: name }, el('i', { class: ICON[extensionOf(name)] ?? 'iconfile1' }), el('span', { class: 'fileitem-name' }, name), remove);
        return { element, remove };
      },
      notice: transientNotice((text) =>
        document.body.appendChild(el('div', { class: 'ant-message' }, el('div', { class: 'ant-message-notice' }, el('div', { class: 'ant-message-notice-content', role: 'alert' }, text)))),
      ),
      dropZone,
      // The skin sets Send anew with each mode: nothing to give back.
      blockSend: sendBlocker(
        () => {
          send.disabled = true;
          send.classList.add('disabled');
        },
        () => {},
      ),
    };
  },
};
