/**
 * Gemini's file controls (sim-markup.md; research 2026-11-28): no file input until asked —
 * the upload menu's "Upload files" item creates `input[name=Filedata]` in the overlay
 * container and clicks it, so a file chooser opens; previews in
 * `.attachment-preview-wrapper`; the chat container as drop zone; refusals in a snack bar.
 */
import { el } from '../dom.js';
import { fileInput, popupMenu, sendBlocker, transientNotice } from '../attachments.js';
import type { AttachLook } from '../skin.js';

export const geminiAttach: AttachLook = {
  mount(ui, attach) {
    const inputArea = ui.composer.element.closest('input-area-v2')!;
    const overlay = document.querySelector<HTMLElement>('.cdk-overlay-container') ?? document.body.appendChild(el('div', { class: 'cdk-overlay-container' }));
    let input: HTMLInputElement | null = null;
    /** The chooser, on demand: the input made the first time, then clicked. */
    const choose = () => {
      input ??= overlay.appendChild(fileInput({ name: 'Filedata', multiple: '', style: 'display:none' }, attach));
      input.click();
    };
    const menuButton = el('button', { type: 'button', 'aria-label': 'Open upload file menu', 'aria-haspopup': 'menu', 'aria-expanded': 'false', class: 'upload-card-button' }, '+');
    popupMenu(
      menuButton,
      () => {
        const item = el('button', { type: 'button', role: 'menuitem', 'data-test-id': 'local-images-files-uploader-button', 'aria-label': 'Upload files. Documents, data, code files', class: 'mat-mdc-menu-item' }, 'Upload files');
        item.addEventListener('click', choose);
        return el('div', { class: 'cdk-overlay-pane' }, el('div', { role: 'menu', class: 'mat-mdc-menu-panel' }, item));
      },
      overlay,
    );
    const hiddenTrigger = el('button', { type: 'button', 'data-test-id': 'hidden-local-file-upload-button', xapfileselectortrigger: '', 'aria-hidden': 'true', tabindex: '-1', style: 'display:none' });
    hiddenTrigger.addEventListener('click', choose);
    const chips = el('div', { class: 'attachment-preview-wrapper' });
    inputArea.prepend(el('uploader', {}, menuButton, hiddenTrigger));
    inputArea.before(chips);
    // The chat container is the drop zone: what the chat window holds, wrapped in it.
    const chatWindow = inputArea.closest('chat-window')!;
    const dropZone = el('div', { class: 'xap-uploader-dropzone', 'file-drop-zone': '' }, ...Array.from(chatWindow.childNodes));
    chatWindow.append(dropZone);
    const send = ui.sendButton;
    return {
      chips,
      chip(name) {
        const remove = el('button', { type: 'button', 'aria-label': 'close attachment', class: 'cancel-button' }, '×');
        const element = el('uploader-file-preview', { title: name, 'aria-label': name }, el('div', { class: 'file-preview-container' }, el('span', { class: 'file-name' }, name)), remove);
        return { element, remove };
      },
      notice: transientNotice((text) =>
        overlay.appendChild(el('div', { class: 'mat-mdc-snack-bar-container' }, el('simple-snack-bar', {}, el('div', { class: 'mat-mdc-snack-bar-label' }, text)))),
      ),
      dropZone,
      // The send slot keeps its button while the mode stays 'ready': its state is ours to give back.
      blockSend: sendBlocker(
        () => send.setAttribute('aria-disabled', 'true'),
        () => send.setAttribute('aria-disabled', 'false'),
      ),
    };
  },
};
