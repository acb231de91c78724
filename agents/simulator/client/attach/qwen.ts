/**
 * Qwen's file controls (sim-markup.md; the 2026-05 real page, research 2026-11-28): the mode
 * select's dropdown trigger and the hidden `#filesUpload` input beside it, file cards with an
 * icon by extension, the chat content as drop zone (`#dropzone-container`), and refusals as
 * antd messages. The single and dual layouts get the input area and the drop zone the
 * chat-panel page has.
 */
import { el } from '../dom.js';
import { extensionOf, fileInput, sendBlocker, transientNotice, type AttachLook } from '../attachments.js';

/** The card's icon class, by extension (invented names in the real page's `icon…1` pattern). */
const ICON: Record<string, string> = { TXT: 'icontxt1', MD: 'icontxt1', PDF: 'iconpdf1', PNG: 'iconimg1', JPG: 'iconimg1', JPEG: 'iconimg1', GIF: 'iconimg1', WEBP: 'iconimg1' };

export const qwenAttach: AttachLook = {
  mount(ui, attach) {
    const textarea = ui.composer.element;
    let area = document.querySelector<HTMLElement>('.message-input-container-area');
    if (!area) {
      area = el('div', { class: 'message-input-container-area' }, el('div', { class: 'mode-select' }));
      textarea.before(area);
    }
    const modeSelect = area.querySelector<HTMLElement>('.mode-select')!;
    const input = fileInput({ id: 'filesUpload', multiple: '', style: 'display:none' }, attach);
    const trigger = el('span', { class: 'ant-dropdown-trigger', role: 'button', 'aria-label': 'Upload files' }, '+');
    trigger.addEventListener('click', () => input.click());
    modeSelect.append(trigger, input);
    const chips = el('div', { class: 'fileitem-list' });
    area.before(chips);
    // The drop zone: the chat content (the chat-panel page has it; the others get it around the chat).
    let dropZone = document.querySelector<HTMLElement>('.chat-content');
    if (!dropZone) {
      const chat = document.querySelector<HTMLElement>('.chat-messages-container')!;
      const inputContainer = textarea.closest<HTMLElement>('.chat-layout-input-container')!;
      dropZone = el('div', { class: 'chat-content' });
      chat.before(dropZone);
      dropZone.append(chat, inputContainer);
    }
    dropZone.id = 'dropzone-container';
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
