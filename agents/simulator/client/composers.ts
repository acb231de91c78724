/** Composer behaviours shared by the skins: a plain textarea, or a rich contenteditable editor. */
import type { Composer } from './skin.js';

/** A plain textarea (DeepSeek, Qwen): the value is the prompt. */
export function textareaComposer(textarea: HTMLTextAreaElement): Composer {
  return {
    element: textarea,
    read: () => textarea.value,
    clear: () => {
      textarea.value = '';
      textarea.dispatchEvent(new Event('input', { bubbles: true }));
    },
  };
}

/**
 * A rich editor (ProseMirror, Quill, Lexical stand-ins): one <p> per line. Like the real
 * ones, it takes pasted text as lines, and Enter sends rather than adding a line.
 */
export function richComposer(editor: HTMLElement, placeholder: string): Composer {
  const lines = () => Array.from(editor.querySelectorAll('p')).map((p) => p.textContent ?? '');
  const setLines = (text: string) => {
    editor.replaceChildren(
      ...text.split('\n').map((line) => {
        const p = document.createElement('p');
        p.textContent = line;
        return p;
      }),
    );
    editor.dispatchEvent(new Event('input', { bubbles: true }));
  };
  const showPlaceholder = () => {
    editor.innerHTML = `<p class="placeholder is-empty" data-placeholder="${placeholder}"><br></p>`;
  };
  editor.addEventListener('paste', (event) => {
    event.preventDefault();
    const pasted = event.clipboardData?.getData('text/plain') ?? '';
    const current = editor.querySelector('.placeholder') ? '' : lines().join('\n');
    setLines(current + pasted);
  });
  // Typed text lands in the placeholder paragraph: from then on it is content.
  editor.addEventListener('input', () => {
    const placeholderP = editor.querySelector('.placeholder');
    if (placeholderP && (placeholderP.textContent ?? '') !== '') placeholderP.classList.remove('placeholder', 'is-empty');
  });
  showPlaceholder();
  return {
    element: editor,
    read: () => (editor.querySelector('.placeholder') ? '' : lines().join('\n')),
    clear: () => {
      showPlaceholder();
      editor.dispatchEvent(new Event('input', { bubbles: true }));
    },
  };
}
