/** The desktop app's proxy of an agent: its partition's configuration, and credentials for that proxy's challenge only. */
import { describe, expect, it } from 'vitest';
import { parseProxy } from '../../main/core/proxy.js';
import { agentProxy } from '../../main/electron/agent-proxy.js';

describe('an agent proxy in the desktop app', () => {
  it('is direct without one', () => {
    const p = agentProxy(null);
    expect(p.config).toEqual({ mode: 'direct' });
    expect(p.credentials({ isProxy: true, host: 'h', port: 1 })).toBeNull();
  });

  it('routes every request, loopback too, through the proxy', () => {
    expect(agentProxy(parseProxy('socks5://10.0.0.2:1080')).config).toEqual({
      mode: 'fixed_servers',
      proxyRules: 'socks5://10.0.0.2:1080',
      proxyBypassRules: '<-loopback>',
    });
  });

  it("answers its own proxy's login challenge with its credentials, and no other challenge", () => {
    const p = agentProxy(parseProxy('http://alice:s3cret@Proxy.Example:3128'));
    expect(p.credentials({ isProxy: true, host: 'proxy.example', port: 3128 })).toEqual({ username: 'alice', password: 's3cret' });
    expect(p.credentials({ isProxy: false, host: 'proxy.example', port: 3128 })).toBeNull(); // a site's own login prompt
    expect(p.credentials({ isProxy: true, host: 'other.example', port: 3128 })).toBeNull();
    expect(p.credentials({ isProxy: true, host: 'proxy.example', port: 8080 })).toBeNull();
    expect(agentProxy(parseProxy('http://[::1]:3128')).credentials({ isProxy: true, host: '::1', port: 3128 })).toBeNull(); // none to give
    expect(agentProxy(parseProxy('http://u:p@[::1]:3128')).credentials({ isProxy: true, host: '::1', port: 3128 })).toEqual({ username: 'u', password: 'p' });
  });
});
