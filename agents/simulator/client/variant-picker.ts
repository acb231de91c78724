/**
 * Each simulated provider's model picker and mode toggles, in the markup the real sites use
 * (the sources are in each pack's `variants.about`): ChatGPT's model-switcher menu, Claude's
 * model selector with its extended-thinking switch, Gemini's mode picker, DeepSeek's
 * DeepThink and Search toggles, Qwen's model dropdown and thinking button, Perplexity's
 * Search / Research / Labs radios. What the account is given (SimLook `variants`): choices it
 * lacks, words changed beyond recognition, choices that seem to go through but do not take.
 * The page says which model answered where the real one does (ChatGPT's
 * `data-message-model-slug`), and shows "Thinking…" while a long-thinking mode thinks.
 */
import { el, show } from './dom.js';
import { simSelector } from './drift-lookups.js';

/** What the account is given, and what is in force as the page opens (the conversation's model, or the account's default). */
export interface VariantBoot {
  lacks: string[];
  renamed: boolean;
  ignored: string[];
  /** The picker and the toggles show only this long after the page (ms). */
  lateMs: number;
  /** The picker ignores clicks this long after the page: shown, not yet hydrated (ms). */
  inertMs: number;
  /** The picker's model (null: the provider has none) and the toggles that are on. */
  model: string | null;
  modes: string[];
}

interface Entry {
  id: string;
  label: string;
  detail?: string;
  /** ChatGPT's message slug for the model. */
  slug?: string;
}

type Look = 'chatgpt' | 'claude' | 'gemini' | 'deepseek' | 'qwen' | 'perplexity';

/** The picker's models and the page's toggles, per provider, with the words each shows. */
const CATALOG: Record<Look, { models: Entry[]; toggles: Entry[] }> = {
  chatgpt: {
    models: [
      { id: 'instant', label: 'Instant', detail: 'Answers right away', slug: 'gpt-5-5' },
      { id: 'thinking', label: 'Thinking', detail: 'Thinks longer for better answers', slug: 'gpt-5-5-thinking' },
      { id: 'pro', label: 'Pro', detail: 'Research-grade intelligence', slug: 'gpt-5-5-pro' },
    ],
    toggles: [],
  },
  claude: {
    models: [
      { id: 'opus', label: 'Opus 4.5', detail: 'For complex tasks' },
      { id: 'sonnet', label: 'Sonnet 4.5', detail: 'Smart, efficient model for everyday use' },
      { id: 'haiku', label: 'Haiku 4.5', detail: 'Fastest for quick answers' },
    ],
    toggles: [{ id: 'extended-thinking', label: 'Extended thinking' }],
  },
  gemini: {
    models: [
      { id: 'fast', label: 'Fast', detail: 'Answers quickly' },
      { id: 'thinking', label: 'Thinking', detail: 'Solves complex problems' },
      { id: 'pro', label: 'Pro', detail: 'Thinks longer for advanced math & code' },
    ],
    toggles: [],
  },
  deepseek: {
    models: [],
    toggles: [
      { id: 'deepthink', label: 'DeepThink' },
      { id: 'search', label: 'Search' },
    ],
  },
  qwen: {
    models: [
      { id: 'max', label: 'Qwen3-Max' },
      { id: 'plus', label: 'Qwen3-Plus' },
      { id: 'coder', label: 'Qwen3-Coder' },
    ],
    toggles: [{ id: 'thinking', label: 'Thinking' }],
  },
  perplexity: {
    models: [],
    toggles: [
      { id: 'search', label: 'Search', slug: 'search' },
      { id: 'research', label: 'Research', slug: 'research' },
      { id: 'labs', label: 'Labs', slug: 'studio' },
    ],
  },
};

/** The models a provider's picker shows first, when the account has not chosen (SimSite default). */
export const DEFAULT_MODEL: Record<Look, string | null> = { chatgpt: 'instant', claude: 'sonnet', gemini: 'fast', deepseek: null, qwen: 'max', perplexity: 'search' };

export interface VariantPicker {
  /** What is in force, for the send. */
  inForce(): { model: string | null; modes: string[] };
  /** Shows or hides the "Thinking…" line a long-thinking mode shows before its answer. */
  thinking(on: boolean): void;
}

/**
 * ChatGPT's app-shell build carries no test ids anywhere; its model picker is the composer's
 * pill (the pack's class and aria cues), its entries menu rows known by their role.
 */
const NO_TEST_IDS: Partial<Record<Look, string>> = { chatgpt: 'app-shell' };

export function variantPicker(provider: string, layout: string, boot: VariantBoot, onPick: () => void, onIgnoredClick: () => void): VariantPicker {
  const look = provider as Look;
  const bare = NO_TEST_IDS[look] === layout;
  const catalog = CATALOG[look];
  let model = boot.model;
  const modes = new Set(boot.modes);
  const offered = (entries: Entry[]) => entries.filter((e) => !boot.lacks.includes(e.id) || look === 'perplexity');
  const words = (entry: Entry, i: number) => (boot.renamed ? `Option ${String.fromCharCode(65 + i)}` : entry.label);
  const takes = (id: string) => !boot.ignored.includes(id);
  const labelOf = (id: string | null) => {
    const i = catalog.models.findIndex((m) => m.id === id);
    return i < 0 ? '' : words(catalog.models[i]!, i);
  };

  const bar = el('div', { class: 'sim-variant-bar', style: 'display:flex;gap:8px;align-items:flex-start;margin-bottom:8px' });
  const status = el('div', { role: 'status', 'aria-live': 'polite', class: 'sim-thinking' }, provider === 'perplexity' ? 'Researching…' : 'Thinking…');
  show(status, false);

  const pick = (id: string) => {
    if (takes(id)) model = id;
    onPick();
    render();
  };
  const flip = (id: string) => {
    if (takes(id)) {
      if (look === 'perplexity') model = id;
      else if (modes.has(id)) modes.delete(id);
      else modes.add(id);
    }
    onPick();
    render();
  };

  const menu = el('div', { role: 'menu', 'data-state': 'open', ...(look === 'qwen' ? { class: 'ant-dropdown' } : {}), style: 'border:1px solid #ccc;padding:4px;background:#fff' });
  show(menu, false);
  const picker = pickerButton(look);
  if (bare) {
    picker.removeAttribute('data-testid');
    picker.classList.add('__composer-pill');
  }
  picker.addEventListener('click', () => {
    if (performance.now() < boot.inertMs) return onIgnoredClick();
    show(menu, menu.style.display === 'none');
    picker.setAttribute('aria-expanded', String(menu.style.display !== 'none'));
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close();
  });
  const close = () => {
    show(menu, false);
    picker.setAttribute('aria-expanded', 'false');
  };

  const render = () => {
    menu.replaceChildren(
      ...offered(catalog.models).map((entry) => {
        const i = catalog.models.indexOf(entry);
        const item = menuEntry(look, entry, words(entry, i), entry.id === model);
        if (bare) item.removeAttribute('data-testid');
        item.addEventListener('click', () => {
          close();
          pick(entry.id);
        });
        return item;
      }),
      ...(look === 'claude' ? offered(catalog.toggles).map((t) => claudeSwitch(words(t, catalog.models.length), modes.has(t.id), () => flip(t.id))) : []),
    );
    labelPicker(look, picker, labelOf(model), modes.has('extended-thinking'));
    if (look !== 'claude') toggleRow.replaceChildren(...offered(catalog.toggles).map((t, i) => toggleControl(look, t, words(t, i), boot.lacks.includes(t.id), look === 'perplexity' ? model === t.id : modes.has(t.id), () => flip(t.id))));
  };
  const toggleRow = el('div', look === 'perplexity' ? { role: 'radiogroup', class: 'group relative isolate flex h-fit' } : { class: '_58b31c9' });
  // Where the skin shows a still picture of the control, the working one takes its place.
  const pickerBox = el('div', { style: 'position:relative;display:inline-block' }, picker, menu);
  if (catalog.models.length) place(pickerBox, STAND_INS[look].picker, bar);
  if (catalog.toggles.length && look !== 'claude') place(toggleRow, STAND_INS[look].toggles, bar);
  if (boot.lateMs > 0) {
    for (const control of [pickerBox, toggleRow]) show(control, false);
    window.setTimeout(() => [pickerBox, toggleRow].forEach((control) => show(control, true)), boot.lateMs);
  }
  bar.append(status);
  document.body.prepend(bar);
  render();

  // ChatGPT marks each answer with the slug of the model that wrote it.
  if (look === 'chatgpt') {
    const stamp = () => {
      const slug = catalog.models.find((m) => m.id === model)?.slug;
      for (const message of Array.from(document.querySelectorAll('[data-message-author-role="assistant"]:not([data-message-model-slug])'))) {
        if (slug) message.setAttribute('data-message-model-slug', slug);
      }
    };
    new MutationObserver(stamp).observe(document.body, { childList: true, subtree: true });
    stamp();
  }

  return {
    inForce: () => ({ model, modes: [...modes].sort() }),
    thinking: (on) => show(status, on),
  };
}

/** The skins' own still pictures of the picker and the toggles (skins/*.ts), replaced by the working ones. */
const STAND_INS: Record<Look, { picker?: string; toggles?: string }> = {
  chatgpt: {},
  claude: { picker: '[data-testid="model-selector-dropdown"]' },
  gemini: { picker: 'bard-mode-switcher [data-test-id="bard-mode-menu-button"]' },
  deepseek: { toggles: '.ds-toggle-button' },
  // In the header: the 2026-05 page has other dropdowns (the composer's mode select, tables).
  qwen: { picker: '#qwen-chat-header-left .ant-dropdown-trigger' },
  perplexity: { toggles: '[role="radiogroup"]' },
};

/** Puts `control` where the first stand-in is (the others go), else in the bar. */
function place(control: HTMLElement, standIn: string | undefined, bar: HTMLElement): void {
  // The page has drifted by now: the rebuilt site's own code names its stand-ins by their new names.
  const [first, ...rest] = standIn ? Array.from(document.querySelectorAll(simSelector(standIn))) : [];
  if (!first) return void bar.append(control);
  first.replaceWith(control);
  for (const other of rest) other.remove();
}

function pickerButton(look: Look): HTMLElement {
  switch (look) {
    case 'chatgpt':
      return el('button', { type: 'button', 'data-testid': 'model-switcher-dropdown-button', 'aria-haspopup': 'menu', 'aria-expanded': 'false' }, el('div', {}, 'ChatGPT'));
    case 'claude':
      return el('button', { type: 'button', 'data-testid': 'model-selector-dropdown', 'aria-haspopup': 'menu', 'aria-expanded': 'false' });
    case 'gemini':
      return el('button', { type: 'button', 'data-test-id': 'bard-mode-menu-button', 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-label': 'Open mode picker' });
    default:
      // Qwen's header selector as the real page has it (2026-05-21), its CSS-module classes hashed.
      return el('span', { class: 'ant-dropdown-trigger', style: 'cursor: pointer' });
  }
}

/** The picker says what is in force as the real ones do: ChatGPT in its label, Claude in its label and text, Gemini and Qwen in its text (Qwen's header selector, real page 2026-05-21). */
function labelPicker(look: Look, picker: HTMLElement, label: string, extended: boolean): void {
  if (look === 'chatgpt') picker.setAttribute('aria-label', `Model selector, current model is ${label}`);
  else if (look === 'claude') {
    const words = `${label}${extended ? ' Extended' : ''}`;
    picker.setAttribute('aria-label', `Model: ${words}`);
    picker.replaceChildren(el('div', { class: 'whitespace-nowrap select-none' }, words));
  } else if (look === 'gemini') {
    // As the 2026 page names it (the skin's still picture carried the same label).
    picker.setAttribute('aria-label', `Open mode picker, currently ${label}`);
    picker.replaceChildren(el('div', { 'data-test-id': 'logo-pill-label-container' }, el('span', {}, label)));
  }
  else picker.replaceChildren(el('div', { class: 'index-module__model-selector___rdCim' }, el('div', { class: 'index-module__model-selector-text___XvWe0' }, label)));
}

function menuEntry(look: Look, entry: Entry, words: string, selected: boolean): HTMLElement {
  const body = [words, ...(entry.detail ? [el('div', { class: 'text-token-text-secondary text-xs' }, entry.detail)] : [])];
  switch (look) {
    case 'chatgpt':
      return el('div', { role: 'menuitemradio', 'aria-checked': String(selected), 'data-testid': `model-switcher-${entry.slug}`, tabindex: '0' }, ...body);
    case 'claude':
      return el('div', { role: 'menuitemradio', 'aria-checked': String(selected), tabindex: '0' }, ...body);
    case 'gemini':
      // No selected state in the entry: the picker's label says which mode is in force.
      return el('button', { type: 'button', role: 'menuitem', 'data-test-id': `bard-mode-option-${entry.id === 'fast' ? 'flash' : entry.id}` }, ...body);
    default:
      return el('li', { role: 'menuitem', class: `ant-dropdown-menu-item${selected ? ' ant-dropdown-menu-item-selected' : ''}` }, words);
  }
}

function claudeSwitch(words: string, on: boolean, flip: () => void): HTMLElement {
  const button = el('button', { type: 'button', role: 'switch', 'aria-checked': String(on), 'aria-label': words }, on ? 'On' : 'Off');
  button.addEventListener('click', flip);
  return el('div', { role: 'menuitem' }, el('span', {}, words), button);
}

function toggleControl(look: Look, entry: Entry, words: string, lacked: boolean, on: boolean, flip: () => void): HTMLElement {
  let control: HTMLElement;
  if (look === 'perplexity') {
    // A free account sees Research and Labs, disabled.
    control = el(
      'button',
      { type: 'button', role: 'radio', 'aria-label': words, value: entry.slug!, 'aria-checked': String(on), 'data-state': on ? 'checked' : 'unchecked', ...(lacked ? { 'aria-disabled': 'true' } : {}) },
      el('span', { 'data-testid': `search-mode-${entry.slug}` }, words),
    );
    if (lacked) return control;
  } else if (look === 'deepseek') {
    control = el(
      'div',
      { role: 'button', tabindex: '0', 'aria-disabled': 'false', 'aria-pressed': String(on), class: `ds-atom-button ds-toggle-button${on ? ' ds-toggle-button--selected' : ''} ds-toggle-button--md` },
      el('span', {}, el('span', { class: '_6dbc175' }, words)),
    );
  } else {
    control = el('button', { type: 'button', class: 'chat-message-input-thinking-budget-btn', 'aria-pressed': String(on) }, el('div', {}, words));
  }
  control.addEventListener('click', flip);
  return control;
}
