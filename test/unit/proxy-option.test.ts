import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../main/cli/args.js';
import { proxyOption } from '../../main/cli/proxy-option.js';
import { parseProxy } from '../../main/core/proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'cb-proxy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

describe('agents set --proxy: the password never on the command line', () => {
  it('refuses a URL that carries a password, naming both other ways', () => {
    expect(() => proxyOption('http://alice:hunter22@10.0.0.2:3128', undefined, {})).toThrow(UsageError);
    expect(() => proxyOption('http://alice:hunter22@10.0.0.2:3128', undefined, {})).toThrow(/--proxy-password-file FILE.*CHATBRIDGE_PROXY_PASSWORD/);
  });

  it("takes the password file's first line, without its line ending, encoded so parseProxy reads it back", () => {
    const stored = proxyOption('http://alice@10.0.0.2:3128', file('pw', 'p@ss:w/rd%\r\nsecond line\n'), {});
    expect(stored).toBe('http://alice:p%40ss%3Aw%2Frd%25@10.0.0.2:3128');
    expect(parseProxy(stored)).toMatchObject({ username: 'alice', password: 'p@ss:w/rd%' });
  });

  it('takes CHATBRIDGE_PROXY_PASSWORD when no file is given; the file wins over it', () => {
    expect(proxyOption('https://bob@proxy.example:8443', undefined, { CHATBRIDGE_PROXY_PASSWORD: 's3cret' })).toBe('https://bob:s3cret@proxy.example:8443');
    expect(proxyOption('https://bob@proxy.example:8443', file('pw2', 'from-file'), { CHATBRIDGE_PROXY_PASSWORD: 's3cret' })).toBe('https://bob:from-file@proxy.example:8443');
  });

  it('keeps a user without a password, and a proxy without a user, as they are', () => {
    expect(proxyOption('http://carol@10.0.0.2:3128', undefined, {})).toBe('http://carol@10.0.0.2:3128');
    expect(proxyOption('socks5://10.0.0.2:1080', undefined, { CHATBRIDGE_PROXY_PASSWORD: 'unused' })).toBe('socks5://10.0.0.2:1080');
  });

  it('refuses a file for a proxy with no user, an unreadable file, an empty first line, and a bad proxy', () => {
    expect(() => proxyOption('http://10.0.0.2:3128', file('pw3', 'x'), {})).toThrow(/the proxy names no user/);
    expect(() => proxyOption('http://a@10.0.0.2:3128', join(dir, 'missing'), {})).toThrow(/cannot read .*missing \(ENOENT\)/);
    expect(() => proxyOption('http://a@10.0.0.2:3128', file('pw4', '\nsecond'), {})).toThrow(/first line of .* is empty/);
    expect(() => proxyOption('ftp://10.0.0.2:21', undefined, {})).toThrow(/^--proxy: /);
  });
});
