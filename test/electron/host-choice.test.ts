import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrowserHost, BrowserSession } from '../../main/core/browser-host.js';
import { defaultHost, HostChoices, HostRouter } from '../../main/electron/host-choice.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'cb-hosts-'));
  dirs.push(d);
  return d;
};

describe('host choice per agent', () => {
  it('starts Gemini on Chrome (Google refuses embedded sign-in) and the others in the app view', () => {
    expect(defaultHost('gemini')).toBe('chrome');
    for (const p of ['chatgpt', 'claude', 'deepseek', 'qwen', 'perplexity'] as const) expect(defaultHost(p)).toBe('view');
  });

  it('keeps a per-agent choice across restarts, and ignores a damaged file', () => {
    const dir = tempDir();
    new HostChoices(dir).set('agt_a', 'chrome');
    const again = new HostChoices(dir);
    expect(again.get('agt_a', 'claude')).toBe('chrome');
    expect(again.get('agt_b', 'claude')).toBe('view');
    writeFileSync(join(dir, 'desktop-hosts.json'), '{"agt_a": "firefox", "agt_b": "chrome"');
    expect(new HostChoices(dir).get('agt_b', 'claude')).toBe('view');
    writeFileSync(join(dir, 'desktop-hosts.json'), '{"agt_a": "firefox", "agt_b": "chrome"}');
    expect(new HostChoices(dir).get('agt_a', 'claude')).toBe('view');
    expect(new HostChoices(dir).get('agt_b', 'claude')).toBe('chrome');
  });

  it('opens each agent on its chosen host', async () => {
    const opened: string[] = [];
    const host = (name: string): BrowserHost => ({
      open: async (id) => {
        opened.push(`${name}:${id}`);
        return {} as BrowserSession;
      },
      forget: async () => {},
    });
    const choices = new HostChoices(tempDir());
    choices.set('agt_c', 'chrome');
    const providers: Record<string, 'claude' | 'gemini'> = { agt_c: 'claude', agt_g: 'gemini', agt_v: 'claude' };
    const router = new HostRouter({ view: host('view'), chrome: host('chrome') }, choices, (id) => providers[id]);
    await router.open('agt_c');
    await router.open('agt_g');
    await router.open('agt_v');
    expect(opened).toEqual(['chrome:agt_c', 'chrome:agt_g', 'view:agt_v']);
    await expect(router.open('agt_missing')).rejects.toThrow(/No agent/);
  });
});
