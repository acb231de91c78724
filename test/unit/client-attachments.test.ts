import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachment, filePart, mediaTypeOf, readAttachment } from '../../main/client/index.js';

describe("the client's attachments", () => {
  it('guesses a media type from the name, case aside, and falls back to octet-stream', () => {
    expect(['a.PNG', 'b.jpeg', 'c.pdf', 'd.md', 'e.tar.gz', 'f', 'g.unknown'].map(mediaTypeOf)).toEqual([
      'image/png', 'image/jpeg', 'application/pdf', 'text/markdown', 'application/gzip', 'application/octet-stream', 'application/octet-stream',
    ]);
  });

  it('encodes the bytes of a view as they are, not its whole buffer', () => {
    const whole = Buffer.from('xxHELLOxx');
    expect(attachment('h.txt', whole.subarray(2, 7))).toEqual({ filename: 'h.txt', media_type: 'text/plain', data: Buffer.from('HELLO').toString('base64') });
    expect(attachment('h.bin', new Uint8Array([0, 255]), 'image/png').media_type).toBe('image/png');
  });

  it('reads a file under its own name, and makes a chat file part of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-attachments-'));
    try {
      writeFileSync(join(dir, 'notes.csv'), 'a,b\n1,2\n');
      const file = await readAttachment(join(dir, 'notes.csv'));
      expect(file).toEqual({ filename: 'notes.csv', media_type: 'text/csv', data: Buffer.from('a,b\n1,2\n').toString('base64') });
      expect(filePart(file)).toEqual({ type: 'file', file: { filename: 'notes.csv', file_data: `data:text/csv;base64,${file.data}` } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
