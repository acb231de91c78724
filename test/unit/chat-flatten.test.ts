import { describe, expect, it } from 'vitest';
import { flattenMessages } from '../../main/api/routes/chat-completions.js';
import { ApiError } from '../../main/core/errors.js';

describe('chat message flattening', () => {
  it('sends a lone user message as it is', () => {
    expect(flattenMessages([{ role: 'user', content: 'Hello\nthere' }])).toBe('Hello\nthere');
  });

  it('labels every turn of a conversation, blank line between', () => {
    expect(
      flattenMessages([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: [{ type: 'text', text: 'Part one' }, { type: 'text', text: 'part two' }] },
      ]),
    ).toBe('System: Be brief.\n\nUser: Hi\n\nAssistant: Hello!\n\nUser: Part one\npart two');
  });

  it('refuses non-text parts and a flattened prompt over the limit', () => {
    expect(() => flattenMessages([{ role: 'user', content: [{ type: 'image_url' }] }])).toThrow(ApiError);
    const long = 'x'.repeat(60_000);
    try {
      flattenMessages([{ role: 'user', content: long }, { role: 'user', content: long }]);
      expect.unreachable();
    } catch (error) {
      expect((error as ApiError).code).toBe('PAYLOAD_TOO_LARGE');
      expect((error as ApiError).status).toBe(413);
    }
  });
});
