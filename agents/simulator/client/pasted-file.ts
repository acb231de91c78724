/**
 * ChatGPT's paste-to-file (research 2026-11-26): a long paste becomes a "Pasted markdown"
 * file attachment in the composer, and the editor stays empty. The file goes with the next
 * send unless removed with its own remove control. SimLook `pasteToFileAt` sets the length.
 */
import { el } from './dom.js';

export interface PastedFiles {
  /** A file waits in the composer. */
  readonly pending: boolean;
  /** The text of the file sent with this send (and takes it out of the composer), or null. */
  take(): string | null;
}

export function pastedFiles(composer: HTMLElement, atChars: number): PastedFiles {
  let file: { text: string; chip: HTMLElement } | null = null;
  const holder = composer.closest('form') ?? composer.parentElement!;
  document.addEventListener(
    'paste',
    (event) => {
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (!(event.target instanceof Node) || !composer.contains(event.target) || text.length < atChars) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      file?.chip.remove();
      const remove = el('button', { type: 'button', 'aria-label': 'Remove file' }, '×');
      const chip = el('div', { 'data-testid': 'composer-attachment', role: 'group', 'aria-label': 'Pasted markdown.md' }, el('span', {}, 'Pasted markdown.md'), remove);
      remove.addEventListener('click', () => {
        chip.remove();
        file = null;
      });
      holder.prepend(chip);
      file = { text, chip };
    },
    true,
  );
  return {
    get pending() {
      return file !== null;
    },
    take() {
      const taken = file;
      taken?.chip.remove();
      file = null;
      return taken?.text ?? null;
    },
  };
}
