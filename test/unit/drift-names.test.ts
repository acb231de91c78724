import { describe, expect, it } from 'vitest';
import { buildHash, renamedTestId, renameInSelector } from '../../agents/simulator/client/drift-names.js';

describe('drift names', () => {
  it('hashes a name the same way every time, keeping nothing of it', () => {
    expect(buildHash('send-button')).toBe(buildHash('send-button'));
    expect(buildHash('send-button')).not.toBe(buildHash('stop-button'));
    expect(buildHash('send-button')).toMatch(/^_[0-9a-z]{7}$/);
    expect(buildHash('send-button')).not.toContain('send');
    expect(renamedTestId('conversation-turn-3')).not.toMatch(/conversation|turn/);
  });

  it('renames the classes and ids of a selector, not its tags, pseudo-classes, numbers or quoted text', () => {
    const name = (n: string) => `H(${n})`;
    expect(renameInSelector('.ql-editor.ql-blank::before', { name })).toBe('.H(ql-editor).H(ql-blank)::before');
    expect(renameInSelector('#chat-input, div.ds-message > p:nth-child(2n+1)', { name })).toBe('#H(chat-input), div.H(ds-message) > p:nth-child(2n+1)');
    expect(renameInSelector('a[href*="example.com"] .x', { name })).toBe('a[href*="example.com"] .H(x)');
    expect(renameInSelector('.dark\\:prose-invert:not(.a .b):has(> #c)', { name })).toBe('.H(dark:prose-invert):not(.H(a) .H(b)):has(> #H(c))');
  });

  it('renames the values of exact test-id selectors it is asked to, and leaves the others', () => {
    const attribute = (attr: string, value: string) => (attr === 'data-testid' ? `qa-${value}` : null);
    expect(renameInSelector('[data-testid="transcript-row"] [data-reveal="fade"]', { attribute })).toBe('[data-testid="qa-transcript-row"] [data-reveal="fade"]');
    expect(renameInSelector("[data-testid='a'], [data-testid=b i]", { attribute })).toBe('[data-testid="qa-a"], [data-testid="qa-b" i]');
    expect(renameInSelector('[data-testid^="conversation-turn"]', { attribute })).toBe('[data-testid^="conversation-turn"]');
  });
});
