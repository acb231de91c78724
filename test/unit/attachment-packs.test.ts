/** The `attachments` section of the selector packs, and how the flow tells a file's chip (attach-files.ts matchChips). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRuntime } from '../../agents/runtime/agent-runtime.js';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { SiteBook } from '../../agents/providers/site-book.js';
import { cutShows, matchChips } from '../../agents/providers/attach-files.js';
import { BUILT_IN_PACKS, PROVIDER_SITES } from '../../agents/providers/index.js';
import { checkOverride, checkPack, compileSite, InvalidPack, mergeOverride } from '../../agents/providers/pack-schema.js';
import type { ChipSeen } from '../../agents/providers/page-helpers/types.js';
import { PROVIDERS } from '../../main/core/providers.js';

const chip = (parts: Partial<ChipSeen>): ChipSeen => ({ title: '', label: '', text: '', busy: false, ...parts });

describe('the built-in packs’ attachments', () => {
  it('say what each site takes, each figure with its source and date, and how files go in', () => {
    const table = Object.fromEntries(
      PROVIDERS.map((p) => {
        const a = BUILT_IN_PACKS[p].attachments!;
        for (const field of ['types', 'maxFileBytes', 'maxFiles'] as const) {
          expect(a[field].source.length, `${p} ${field}`).toBeGreaterThan(10);
          expect(a[field].checked, `${p} ${field}`).toMatch(/^20\d\d-\d\d-\d\d$/);
        }
        return [p, [a.via, a.types.value === null ? 'any' : a.types.value.length, a.maxFileBytes.value, a.maxFiles.value]];
      }),
    );
    expect(table).toEqual({
      chatgpt: ['input', 'any', 20_000_000, 10],
      claude: ['input', 17, 30_000_000, 20],
      gemini: ['chooser', 'any', 100_000_000, 10],
      deepseek: ['input', 27, 100_000_000, 50],
      qwen: ['input', 'any', 20_971_520, 10],
      perplexity: ['input', 94, 25_000_000, 10],
    });
    // The compiled site gives the rules, and the page's pack carries the cues.
    expect(PROVIDER_SITES.claude.attachments).toEqual({
      via: 'input',
      rules: { types: BUILT_IN_PACKS.claude.attachments!.types.value, maxFileBytes: 30_000_000, maxFiles: 20 },
    });
    expect(PROVIDER_SITES.gemini.page.attachOpener?.length).toBeGreaterThan(0);
    expect(PROVIDER_SITES.chatgpt.page.fileInput?.[0]?.css).toContain('#upload-files');
  });

  it('refuse a way in without its cues, and a type that is no type', () => {
    const pack = structuredClone(BUILT_IN_PACKS.gemini) as Record<string, unknown> & { attachments: Record<string, unknown> };
    delete pack.attachments.opener;
    expect(() => checkPack(pack, 'gemini.json')).toThrow(/via "chooser" needs opener and menuItem/);
    expect(() => checkOverride({ attachments: { types: { value: ['pdf'], source: 'mine', checked: '2026-11-28' } } }, 'o.json')).toThrow(InvalidPack);
  });

  it('take an override’s figures and cues over the pack’s, a user’s patterns bounded like its roles’', () => {
    const override = checkOverride(
      {
        attachments: {
          maxFiles: { value: 3, source: 'my plan shows 3', checked: '2026-11-28' },
          refusal: [{ kind: 'text', css: '.toast', text: '/cannot upload/i' }],
        },
      },
      'chatgpt.json',
    );
    const site = compileSite(mergeOverride(BUILT_IN_PACKS.chatgpt, override), { file: 'chatgpt.json', value: override });
    expect(site.attachments?.rules).toEqual({ types: null, maxFileBytes: 20_000_000, maxFiles: 3 });
    expect(site.page.attachRefusal).toEqual([{ kind: 'text', css: '.toast', text: ['cannot upload', 'i', expect.any(Number)] }]);
    expect(site.page.attachChip).toEqual(PROVIDER_SITES.chatgpt.page.attachChip);
  });
});

describe('the agents’ control', () => {
  it('gives each provider’s rules from its pack in force, a user’s override included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-att-packs-'));
    try {
      writeFileSync(join(dir, 'qwen.json'), JSON.stringify({ attachments: { maxFiles: { value: 2, source: 'my account', checked: '2026-11-28' } } }));
      const book = new SiteBook(dir);
      await book.open();
      const control = new RuntimeControl({ site: (p: (typeof PROVIDERS)[number]) => book.site(p) } as unknown as AgentRuntime);
      expect(control.attachmentRules('qwen')).toEqual({ types: null, maxFileBytes: 20_971_520, maxFiles: 2 });
      expect(control.attachmentRules('perplexity')?.types).toContain('.ipynb');
      book.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a file’s chip', () => {
  it('is the one its title or label names, each chip taken once, in the files’ order', () => {
    const chips = [chip({ title: 'b.txt' }), chip({ label: 'a.png' }), chip({ title: 'a.png' })];
    expect(matchChips(['a.png', 'b.txt', 'a.png', 'c.pdf'], chips)).toEqual([1, 0, 2, -1]);
  });

  it('is found by its words where it has no whole name, a long name cut with an ellipsis', () => {
    const name = 'quarterly-report-final-version.pdf';
    expect(matchChips([name], [chip({ text: 'quarterly-report-fi….pdf PDF' })])).toEqual([0]);
    expect(matchChips([name], [chip({ text: 'quarterly-report-fi...pdf' })])).toEqual([0]);
    expect(matchChips(['notes.md'], [chip({ text: 'notes.md MD 5.21KB' })])).toEqual([0]);
    // Another file's cut name is not this one's.
    expect(matchChips([name], [chip({ text: 'quarterly-budget….xlsx' })])).toEqual([-1]);
    expect(cutShows('ab….pdf', 'abcdefgh.pdf')).toBe(true);
    expect(cutShows('…f', 'abcdef')).toBe(false);
  });

  it('is found when the site numbered a second file of the same name', () => {
    expect(matchChips(['notes.md', 'notes.md'], [chip({ title: 'notes.md' }), chip({ title: 'notes(1).md' })])).toEqual([0, 1]);
  });

  it('prefers a whole name over words that merely contain the name', () => {
    const chips = [chip({ text: 'a.txt.bak' }), chip({ title: 'a.txt' })];
    expect(matchChips(['a.txt'], chips)).toEqual([1]);
  });
});
