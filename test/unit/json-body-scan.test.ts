import { describe, expect, it } from 'vitest';
import { JsonBodyScan, MAX_JSON_DEPTH } from '../../main/api/json-body.js';

/** The scan of `text` fed in pieces of `size` bytes. */
function scan(text: string, size = Infinity): JsonBodyScan {
  const s = new JsonBodyScan();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += Math.min(size, bytes.length)) s.feed(bytes.subarray(i, i + size));
  return s;
}

describe('JsonBodyScan', () => {
  it("counts a file's data apart from the rest, native and chat alike", () => {
    const data = 'QUJD'.repeat(100);
    const native = JSON.stringify({ prompt: 'p', attachments: [{ filename: 'a', media_type: 'x/y', data }] });
    expect(scan(native).fileBytes).toBe(data.length);
    expect(scan(native).otherBytes).toBe(Buffer.byteLength(native) - data.length);
    const chat = JSON.stringify({ messages: [{ content: [{ type: 'image_url', image_url: { url: `data:x/y;base64,${data}` } }, { type: 'file', file: { file_data: data } }] }] });
    expect(scan(chat).fileBytes).toBe(data.length * 2 + 'data:x/y;base64,'.length);
  });

  it('gives the same counts whatever the pieces, escapes split across them included', () => {
    const text = JSON.stringify({ 'da\\ta': 'not a file', metadata: { data: 'a\\"b/c' }, attachments: [{ data: 'ab\\/cd==' }], prompt: 'é"x' });
    const whole = scan(text);
    for (const size of [1, 2, 3, 7]) {
      const pieces = scan(text, size);
      expect([pieces.fileBytes, pieces.otherBytes]).toEqual([whole.fileBytes, whole.otherBytes]);
    }
    // A key spelt with an escape is no file key; an escaped / in a file's data is the file's.
    expect(whole.fileBytes).toBe(JSON.stringify('a\\"b/c').length - 2 + JSON.stringify('ab\\/cd==').length - 2);
  });

  it('a string under a file key in an array, or as a key, is not a file', () => {
    expect(scan(JSON.stringify({ data: ['x'.repeat(50)], x: { data: 1 }, url: { a: 'y'.repeat(9) } })).fileBytes).toBe(0);
  });

  it('notices nesting past the limit', () => {
    expect(scan('['.repeat(MAX_JSON_DEPTH)).tooDeep).toBe(false);
    expect(scan('['.repeat(MAX_JSON_DEPTH + 1), 100).tooDeep).toBe(true);
    expect(scan(`{"a":"${'['.repeat(MAX_JSON_DEPTH + 5)}"}`).tooDeep).toBe(false);
  });
});
