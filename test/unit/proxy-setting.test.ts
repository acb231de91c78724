/** An agent's proxy: what is accepted, what is refused with a reason, and how it is shown (never its password). */
import { describe, expect, it } from 'vitest';
import { BadProxy, maskProxy, parseProxy } from '../../main/core/proxy.js';

describe('an agent proxy', () => {
  it('takes http, https and socks5 with host and port, and credentials for http(s)', () => {
    expect(parseProxy('http://127.0.0.1:3128')).toEqual({
      scheme: 'http',
      host: '127.0.0.1',
      port: 3128,
      server: 'http://127.0.0.1:3128',
      username: null,
      password: null,
    });
    expect(parseProxy(' HTTPS://Proxy.Example.com:443/ ')).toMatchObject({ scheme: 'https', host: 'proxy.example.com', server: 'https://proxy.example.com:443' });
    expect(parseProxy('socks5://[::1]:1080')).toMatchObject({ scheme: 'socks5', host: '[::1]', port: 1080, server: 'socks5://[::1]:1080' });
    expect(parseProxy('http://me%40home:p%3Ass@10.0.0.2:8080')).toMatchObject({ username: 'me@home', password: 'p:ss', server: 'http://10.0.0.2:8080' });
    expect(parseProxy('http://token@10.0.0.2:8080')).toMatchObject({ username: 'token', password: null });
  });

  it('refuses anything else with a reason that never repeats the password', () => {
    const refused: [string, RegExp][] = [
      ['ftp://h:21', /starts with http:\/\/, https:\/\/ or socks5:\/\//],
      ['proxy.example:3128', /starts with http/],
      ['socks4://h:1080', /starts with http/],
      ['http://h', /host:port/],
      ['http://:8080', /host:port/],
      ['http://h:8080/path', /nothing after the port/],
      ['http://h:8080?x=1', /nothing after the port/],
      ['http://h:0', /port is from 1 to 65535/],
      ['http://h:70000', /port is from 1 to 65535/],
      ['http://:secret-pw@h:80', /no user name/],
      ['http://u:%E0%A4%A@h:80', /URL encoding/],
      ['socks5://u:secret-pw@h:1080', /cannot log in to a SOCKS5 proxy/],
    ];
    for (const [text, reason] of refused) {
      let error: unknown;
      try {
        parseProxy(text);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(BadProxy);
      expect((error as Error).message, text).toMatch(reason);
      expect((error as Error).message, text).not.toContain('secret-pw');
    }
  });

  it('is shown with the password masked and only the first letter of the user name', () => {
    expect(maskProxy('http://alice:s3cret@proxy.example:3128')).toBe('http://a…:••••@proxy.example:3128');
    expect(maskProxy('http://token@10.0.0.2:8080')).toBe('http://t…@10.0.0.2:8080');
    expect(maskProxy('socks5://10.0.0.2:1080')).toBe('socks5://10.0.0.2:1080');
    expect(maskProxy('http://alice:s3cret@proxy.example')).toBe('a proxy that is not valid');
  });
});
