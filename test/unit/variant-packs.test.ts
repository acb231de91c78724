/** The `variants` section of the selector packs: what each pack lists, what the schema refuses, how an override adds one. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PACKS, PROVIDER_SITES } from '../../agents/providers/index.js';
import { checkOverride, checkPack, compileSite, InvalidPack, mergeOverride } from '../../agents/providers/pack-schema.js';
import { SiteBook, type SiteBookNote } from '../../agents/providers/site-book.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { until } from '../support/until.js';

describe('the built-in packs’ variants', () => {
  it('list the models and modes each provider’s page offers, each with its evidence and date', () => {
    const ids = Object.fromEntries(PROVIDERS.map((p) => [p, BUILT_IN_PACKS[p].variants!.list.map((v) => v.id)]));
    expect(ids).toEqual({
      chatgpt: ['instant', 'thinking', 'pro'],
      claude: ['opus', 'sonnet', 'haiku', 'extended-thinking', 'opus-thinking'],
      gemini: ['fast', 'thinking', 'pro'],
      deepseek: ['deepthink', 'search', 'deepthink-search'],
      qwen: ['max', 'plus', 'coder', 'thinking'],
      perplexity: ['search', 'research', 'labs'],
    });
    // The long-thinking ones have their own attempt limit, within the hour a job may last.
    const long = PROVIDERS.flatMap((p) => PROVIDER_SITES[p].variants.list.filter((v) => v.timeoutMs !== null).map((v) => `${p}/${v.id} ${v.timeoutMs}`));
    expect(long).toEqual(['chatgpt/pro 2700000', 'perplexity/research 2700000']);
    for (const provider of PROVIDERS) {
      for (const variant of BUILT_IN_PACKS[provider].variants!.list) {
        expect(variant.source, `${provider} ${variant.id}`).toBeTruthy();
        expect(variant.checked, `${provider} ${variant.id}`).toMatch(/^20\d\d-\d\d-\d\d$/);
      }
    }
  });

  it('compile to steps whose words match the labels the sites show, in any listed language, as whole words', () => {
    const step = (provider: 'chatgpt' | 'deepseek' | 'gemini', id: string) => new RegExp(`^\\s*(?:${PROVIDER_SITES[provider].variants.list.find((v) => v.id === id)!.steps[0]!.words})(?!\\p{L})`, 'iu');
    expect(step('chatgpt', 'pro').test('Pro Research-grade intelligence')).toBe(true);
    expect(step('chatgpt', 'pro').test('Projects')).toBe(false);
    expect(step('chatgpt', 'thinking').test('GPT-5 Thinking')).toBe(true);
    expect(step('deepseek', 'deepthink').test('深度思考 (R1)')).toBe(true);
    expect(step('gemini', 'fast').test('Rapide')).toBe(true);
    // The answer's own slug first; the picker's label where the answer has none (the app-shell build).
    expect(PROVIDER_SITES.chatgpt.variants.modelUsed.map((p) => [p.in, p.attribute])).toEqual([
      ['answer', 'data-message-model-slug'],
      ['picker', 'aria-label'],
    ]);
    // Every provider's page names its model or mode somewhere.
    expect(PROVIDERS.filter((p) => PROVIDER_SITES[p].variants.modelUsed.length === 0)).toEqual([]);
    expect(PROVIDER_SITES.chatgpt.page.thinking!.length).toBeGreaterThan(0);
  });
});

describe('variant validation', () => {
  const base = structuredClone(BUILT_IN_PACKS.deepseek);
  const withVariants = (variants: unknown) => ({ ...structuredClone(base), variants });

  it('refuses ids outside [a-z0-9-], steps without the controls they need, twice-listed ids, words that do not compile, unknown languages', () => {
    const section = { toggle: 'button', selected: '[aria-pressed="true"]' };
    const one = (variant: Record<string, unknown>) => withVariants({ ...section, list: [{ id: 'x', label: 'X', steps: [{ how: 'toggle', words: { en: ['x'] } }], ...variant }] });
    expect(() => checkPack(one({ id: 'Deep_Think' }), 'p')).toThrow(/\/variants\/list\/0\/id/);
    expect(() => checkPack(one({ steps: [{ how: 'option', words: { en: ['x'] } }] }), 'p')).toThrow(/"option" step needs variants\.picker.*needs variants\.option/);
    expect(() => checkPack(one({ steps: [{ how: 'toggle', words: { en: ['(x'] } }] }), 'p')).toThrow(/\/variants\/list\/0\/steps\/0\/words: .*Invalid regular expression/);
    expect(() => checkPack(one({ steps: [{ how: 'toggle', words: { xx: ['x'] } }] }), 'p')).toThrow(InvalidPack);
    expect(() => checkPack(one({ steps: [] }), 'p')).toThrow(/steps/);
    const twice = withVariants({ ...section, list: [0, 1].map(() => ({ id: 'x', label: 'X', steps: [{ how: 'toggle', words: { en: ['x'] } }] })) });
    expect(() => checkPack(twice, 'p')).toThrow(/"x" is listed twice/);
    expect(() => checkOverride({ variants: { picker: [{ kind: 'aria', css: 'button', name: '@nope' }] } }, 'o')).toThrow(/\/variants\/picker\/0\/name: no word @nope/);
    // A user's words run in the service: one that can backtrack catastrophically is refused.
    const backtracking = { id: 'x', label: 'X', steps: [{ how: 'toggle', words: { en: ['(a+)+$'] } }] };
    expect(() => checkOverride({ variants: { list: [backtracking] } }, 'o')).toThrow(/\/variants\/list\/0\/steps\/0\/words: .*backtrack/);
    // Where the page names the model: an answer's place needs its element, a pattern must compile.
    expect(() => checkOverride({ variants: { modelUsed: [{ in: 'answer', attribute: 'data-model' }] } }, 'o')).toThrow(/\/variants\/modelUsed\/0: a place "in" the answer needs its css/);
    expect(() => checkOverride({ variants: { modelUsed: [{ in: 'picker', pattern: 'model (' }] } }, 'o')).toThrow(/\/variants\/modelUsed\/0\/pattern: .*Invalid regular expression/);
    expect(() => checkOverride({ variants: { modelUsed: [{ in: 'footer' }] } }, 'o')).toThrow(InvalidPack);
  });

  it('lets an override add a variant, replace one of the same id and change the section’s controls, the rest kept', () => {
    const override = checkOverride(
      {
        variants: {
          selected: '[aria-pressed="true"], .on',
          list: [
            { id: 'expert', label: 'Expert', steps: [{ how: 'toggle', words: { en: ['expert'] } }] },
            { id: 'search', label: 'Web search', steps: [{ how: 'toggle', words: { en: ['web search'], zh: ['联网搜索'] } }] },
          ],
        },
      },
      'sites/deepseek.json',
    );
    const site = compileSite(mergeOverride(base, override), { file: 'sites/deepseek.json', value: override });
    expect(site.variants.list.map((v) => v.id)).toEqual(['deepthink', 'deepthink-search', 'expert', 'search']);
    expect(site.variants.list.find((v) => v.id === 'search')!.steps[0]!.words).toBe('web search|联网搜索');
    expect(site.variants.selected).toBe('[aria-pressed="true"], .on');
    expect(site.variants.toggle).toBe(base.variants!.toggle);
  });

  it('takes a variant a user’s override file adds, and says so in the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatbridge-variants-'));
    const notes: SiteBookNote[] = [];
    const book = new SiteBook(dir, (n) => notes.push(n));
    try {
      await book.open();
      writeFileSync(join(dir, 'chatgpt.json'), JSON.stringify({ variants: { list: [{ id: 'thinking-mini', label: 'Thinking mini', steps: [{ how: 'option', words: { en: ['thinking mini'] } }] }] } }));
      await until(() => book.site('chatgpt').variants.list.some((v) => v.id === 'thinking-mini'), 15_000, 'the override');
      expect(book.site('chatgpt').variants.list.map((v) => v.id)).toEqual(['instant', 'thinking', 'pro', 'thinking-mini']);
      expect(notes.at(-1)!.message).toMatch(/in force for ChatGPT \(variants: thinking-mini\)/);
    } finally {
      book.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
