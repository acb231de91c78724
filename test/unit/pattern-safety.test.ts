/**
 * The check of a user's patterns (issue 34): every pattern that could take more than linear
 * time at a place of a text on V8's backtracking engine is refused, with the reason, and the
 * patterns people write for cues pass; what passes reads at most USER_TEXT_LIMIT characters
 * of a text, in the page and in the service.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PACKS } from '../../agents/providers/index.js';
import { checkOverride, compileSite, mergeOverride } from '../../agents/providers/pack-schema.js';
import { addCues } from '../../agents/providers/page-helpers/cues.js';
import type { Helpers } from '../../agents/providers/page-helpers/types.js';
import { superLinear } from '../../agents/providers/pattern-safety.js';
import { USER_TEXT_LIMIT } from '../../agents/providers/user-patterns.js';

describe('a user pattern', () => {
  it('is refused when one stretch of text can match it in many ways, or the check cannot count them', () => {
    const refused: [string, string, RegExp][] = [
      // The issue's: 109 s on 29 characters.
      ['(a|a)*$', '', /same text in two ways/],
      ['(a+)+$', '', /same text in two ways/],
      ['(\\w+\\s?)*$', 'i', /same text in two ways/],
      ['^(\\d+|\\d{2})+x', '', /same text in two ways/],
      ['(x|xy|y)*z', '', /same text in two ways/],
      ['\\s*\\s*$', '', /two repetitions/],
      ['\\w+\\d+$', '', /two repetitions/],
      ['.*foo.*bar', 's', /two repetitions/],
      ['a{2,30}a{2,30}$', '', /two repetitions/],
      ['(a*)*b', '', /a repetition of something that can match nothing/],
      ['(a?|b?)c', '', /two branches that can match nothing/],
      ['(a)\\1', '', /a backreference/],
      ['(?<x>a)\\k<x>', '', /a backreference/],
      ['^(?!guest$)\\w+', '', /a lookaround/],
      ['(?<=a)b', '', /a lookaround/],
      ['[a-z]', 'v', /the flag v/],
      ['a'.repeat(1_001), '', /longer than 1000 characters/],
    ];
    for (const [source, flags, why] of refused) expect(superLinear(source, flags), `/${source}/${flags}`).toMatch(why);
  });

  it('passes when written as people write cues, addresses and variant words', () => {
    const passed: [string, string][] = [
      ['^send( message)?$', 'i'],
      ['^\\s*Stop\\s*generating\\s*$', 'i'],
      ['(ab*)*c', ''],
      ['(x|xy)*z', ''],
      ['^(?:/g/[^/]+)?/c/[A-Za-z0-9-]+$', ''],
      ['^https?://[^/]+/(auth|login|signin)([/?#]|$)', ''],
      ['reached (?:the|your) [\\w -]{0,40}(?:limit|quota)', 'i'],
      ['[^@\\s]+@[^@\\s]+\\.[a-z]{2,}', 'i'],
      ['\\p{L}+\\d+', 'u'],
      ['^\\s*(?:thinking|思考中)', 'iu'],
      ['qwen\\d?(?:\\.\\d+)?-max', 'iu'],
      ['[\\u{1F600}-\\u{1F64F}]+ hi', 'u'],
    ];
    for (const [source, flags] of passed) expect(superLinear(source, flags), `/${source}/${flags}`).toBeNull();
  });

  it('refused in an override names where it is; the built-in packs, which the check does not hold, still load', () => {
    const cue = (text: string) => ({ roles: { stop: [{ kind: 'text', css: 'button', text }] } });
    expect(() => checkOverride(cue('/(a|a)*$/'), 'sites/chatgpt.json')).toThrow(
      /sites\/chatgpt\.json: \/roles\/stop\/0\/text: the pattern could backtrack catastrophically, taking more than linear time on some text: a repetition that can match the same text in two ways/,
    );
    expect(() => checkOverride({ loginUrl: '^https://x/(?!a)' }, 'o')).toThrow(/\/loginUrl: .*a lookaround/);
    expect(Object.keys(BUILT_IN_PACKS)).toHaveLength(6);
  });

  it("reads at most USER_TEXT_LIMIT characters of a text, in the page and in the service; the packs' own patterns read it all", () => {
    const override = checkOverride({ conversationPath: '^/c/\\w+x$', roles: { stop: [{ kind: 'text', css: 'button', text: '/x$/' }] } }, 'o');
    const site = compileSite(mergeOverride(BUILT_IN_PACKS.chatgpt, override), { file: 'o', value: override });
    expect(site.page.stop).toEqual([{ kind: 'text', css: 'button', text: ['x$', '', USER_TEXT_LIMIT] }]);
    expect(site.page.composer).toEqual(compileSite(BUILT_IN_PACKS.chatgpt).page.composer);

    const h = {} as Helpers;
    addCues(h);
    const long = `${'a'.repeat(USER_TEXT_LIMIT)}x`;
    expect(h.regex(site.page.stop![0]!.text)!.test(long)).toBe(false);
    expect(h.regex(site.page.stop![0]!.text)!.test('ax')).toBe(true);
    expect(h.regex(['x$', ''])!.test(long)).toBe(true);
    expect(site.conversationPath.test(`/c/${'a'.repeat(USER_TEXT_LIMIT)}x`)).toBe(false);
    expect(site.conversationPath.test('/c/abcx')).toBe(true);
  });
});
