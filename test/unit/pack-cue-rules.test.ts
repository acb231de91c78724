/**
 * The rule every built-in pack keeps (issue 18 §2): each role the flow acts on is found by
 * cues of at least three kinds, and at least one of them names neither a test id nor a class
 * nor an id, so a release that renames test ids and hashes classes at once still finds it.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PACKS } from '../../agents/providers/index.js';
import { ACTING_ROLES } from '../../agents/providers/site.js';
import { PROVIDERS } from '../../main/core/providers.js';
import type { Cue } from '../../agents/providers/cues.js';
import { survivesRenames } from '../support/cue-rules.js';

describe('the cue rule', () => {
  it('tells the cues that survive renamed test ids and hashed classes from those that do not', () => {
    const cue = (css: string): Cue => ({ kind: 'structure', css });
    expect(survivesRenames(cue('form [contenteditable="true"][role="textbox"]'))).toBe(true);
    expect(survivesRenames(cue('[data-message-author-role="assistant"]'))).toBe(true);
    expect(survivesRenames(cue('button[aria-label="Copy v1.2"]'))).toBe(true);
    expect(survivesRenames(cue('a[href="/login"]'))).toBe(true);
    expect(survivesRenames(cue('[data-testid="chat-input"]'))).toBe(false);
    expect(survivesRenames(cue('div.ProseMirror'))).toBe(false);
    expect(survivesRenames(cue('#prompt-textarea'))).toBe(false);
    expect(survivesRenames(cue('[id^="markdown-content-"]'))).toBe(false);
    expect(survivesRenames(cue('[class*="_DilResponseRoot"]'))).toBe(false);
    expect(survivesRenames(cue('button:has(use[*|href="#pplx-icon-copy"])'))).toBe(false);
  });
});

describe('the built-in packs', () => {
  it('find every role the flow acts on by cues of at least three kinds', () => {
    const kinds = (provider: (typeof PROVIDERS)[number], role: (typeof ACTING_ROLES)[number]) => new Set(BUILT_IN_PACKS[provider].roles[role]!.map((c) => c.kind)).size;
    const thin = PROVIDERS.flatMap((provider) => ACTING_ROLES.filter((role) => kinds(provider, role) < 3).map((role) => `${provider}.${role}`));
    expect(thin).toEqual([]);
  });

  it('find every role the flow acts on by a cue that survives renamed test ids and hashed classes together', () => {
    const fragile = PROVIDERS.flatMap((provider) =>
      ACTING_ROLES.filter((role) => !BUILT_IN_PACKS[provider].roles[role]!.some(survivesRenames)).map((role) => `${provider}.${role}`),
    );
    expect(fragile).toEqual([]);
  });
});

describe("the built-in packs' conversation", () => {
  /**
   * Where the page gives nothing but classes and ids to tell a person's message by, and
   * why that is safe: no notice cue of the pack can be met by a plain-text prompt.
   */
  const CLASSES_ONLY: Record<string, string> = {
    'qwen.userTurn': "Qwen's message carries only classes and an id (real page 2026-05); its prompt is plain text, and Qwen's notices need roles or classes",
  };

  it('find the person\'s turns and the chats\' titles by a cue that survives renamed test ids and hashed classes together', () => {
    const fragile = PROVIDERS.flatMap((provider) =>
      (['userTurn', 'chatTitle'] as const).filter((role) => !BUILT_IN_PACKS[provider].roles[role]!.some(survivesRenames)).map((role) => `${provider}.${role}`),
    );
    expect(fragile).toEqual(Object.keys(CLASSES_ONLY));
  });
});
