import { describe, expect, it } from 'vitest';
import { filesRefused, type AttachmentMeta, type AttachmentRules } from '../../main/core/attachments.js';

const file = (filename: string, media_type: string, bytes = 10): AttachmentMeta => ({ filename, media_type, bytes, sha256: '0'.repeat(64) });
const rules = (r: Partial<AttachmentRules>): AttachmentRules => ({ types: null, maxFileBytes: null, maxFiles: null, ...r });

describe('filesRefused', () => {
  it('takes a job without files whatever the rules, even a site that takes none', () => {
    expect(filesRefused(null, [])).toBeNull();
    expect(filesRefused(rules({ maxFiles: 0 }), [])).toBeNull();
  });

  it('refuses any file where the site takes none, naming it', () => {
    expect(filesRefused(null, [file('a.png', 'image/png')])).toContain('"a.png"');
  });

  it('takes anything under null limits', () => {
    expect(filesRefused(rules({}), [file('x.bin', 'application/octet-stream', 1e9)])).toBeNull();
  });

  it('matches a type exactly, by type/* or by the name ending, case aside and parameters aside', () => {
    const r = rules({ types: ['application/pdf', 'image/*', '.md'] });
    expect(filesRefused(r, [file('a.pdf', 'Application/PDF'), file('b.PNG', 'image/png'), file('c.MD', 'text/plain')])).toBeNull();
    expect(filesRefused(r, [file('d.txt', 'text/plain; charset=utf-8')])).toBe(
      'file "d.txt" (text/plain; charset=utf-8) is not a type the provider\'s site takes (application/pdf, image/*, .md)',
    );
    expect(filesRefused(rules({ types: ['text/plain'] }), [file('d.txt', 'text/plain; charset=utf-8')])).toBeNull();
    // 'image/*' is not a prefix match on arbitrary text: "imagex/png" is another type.
    expect(filesRefused(rules({ types: ['image/*'] }), [file('e', 'imagex/png')])).not.toBeNull();
  });

  it('names the file too big and the size limit', () => {
    const r = rules({ maxFileBytes: 100 });
    expect(filesRefused(r, [file('ok', 'text/plain', 100), file('big.log', 'text/plain', 101)])).toBe(
      'file "big.log" is 101 bytes, but the provider\'s site takes at most 100 bytes a file',
    );
  });

  it('counts files against the site\'s limit a message', () => {
    const r = rules({ maxFiles: 2 });
    expect(filesRefused(r, [file('a', 'x/y'), file('b', 'x/y')])).toBeNull();
    expect(filesRefused(r, [file('a', 'x/y'), file('b', 'x/y'), file('c', 'x/y')])).toBe(
      "3 files, but the provider's site takes at most 2 a message",
    );
  });
});
