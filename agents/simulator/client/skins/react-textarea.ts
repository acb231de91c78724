/**
 * A React-controlled plain textarea, as DeepSeek and Qwen have (research/providers.md §1:
 * "plain textareas need the React native-value setter + `input` event, or Playwright
 * `fill`"). React keeps the prompt in component state and hears of an edit only through an
 * `input` event whose value differs from the one it last saw (its value tracker, which it
 * updates whenever `.value` is assigned through the element). So `el.value = text` plus a
 * synthetic `input` event changes nothing a send would see; real editing does: typing,
 * IME, and Playwright's `fill`, which inserts text through the browser's editing path.
 */
import { textareaComposer } from '../composers.js';
import type { Composer } from '../skin.js';

export function reactTextarea(textarea: HTMLTextAreaElement): Composer {
  const native = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!;
  const domValue = () => native.get!.call(textarea) as string;
  /** What React believes the element holds. */
  let tracked = '';
  /** The component state: what a send sends. */
  let state = '';
  Object.defineProperty(textarea, 'value', {
    configurable: true,
    get: domValue,
    set(value: unknown) {
      tracked = String(value);
      native.set!.call(textarea, value);
    },
  });
  // Registered before the engine's own `input` listener, so the engine reads fresh state.
  textarea.addEventListener('input', () => {
    const now = domValue();
    if (now === tracked) return;
    tracked = now;
    state = now;
  });
  const base = textareaComposer(textarea);
  return {
    element: textarea,
    read: () => state,
    clear: () => {
      state = '';
      base.clear();
    },
  };
}
