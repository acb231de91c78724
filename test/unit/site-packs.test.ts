import { mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_IN_PACKS, PROVIDER_SITES } from '../../agents/providers/index.js';
import { checkOverride, checkPack, compileSite, InvalidPack, mergeOverride } from '../../agents/providers/pack-schema.js';
import { SiteBook, type SiteBookNote } from '../../agents/providers/site-book.js';
import { REQUIRED_ROLES } from '../../agents/providers/site.js';
import { uiWordPattern } from '../../agents/providers/ui-words.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { until } from '../support/until.js';

describe('the built-in selector packs', () => {
  it('are valid, dated and versioned, and name every required role', () => {
    for (const provider of PROVIDERS) {
      const pack = BUILT_IN_PACKS[provider];
      expect(pack.provider).toBe(provider);
      expect(pack.version).toBeGreaterThanOrEqual(1);
      expect(pack.checked).toMatch(/^20\d\d-\d\d-\d\d$/);
      for (const role of REQUIRED_ROLES) expect(pack.roles[role], `${provider} ${role}`).toBeDefined();
    }
  });

  it('compile to sites whose addresses and cues are what the packs say', () => {
    const claude = PROVIDER_SITES.claude;
    expect(claude.conversationPath.test('/chat/0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d')).toBe(true);
    expect(claude.loginUrl.test('https://claude.ai/login?returnTo=%2F')).toBe(true);
    expect(claude.page.composer!.length).toBe(BUILT_IN_PACKS.claude.roles.composer!.length);
  });
});

describe('pack validation', () => {
  const base = structuredClone(BUILT_IN_PACKS.chatgpt);

  it('refuses a pack that is not one, naming every problem and where it is', () => {
    const bad = structuredClone(base) as Record<string, unknown>;
    (bad.roles as Record<string, unknown>).send = [{ kind: 'guess', css: 'button' }];
    delete (bad.roles as Record<string, unknown>).composer;
    expect(() => checkPack(bad, 'packs/x.json')).toThrow(InvalidPack);
    expect(() => checkPack(bad, 'packs/x.json')).toThrow(/packs\/x\.json: .*\/roles\/send\/0\/kind/);
    const missing = structuredClone(base) as Record<string, unknown>;
    delete (missing.roles as Record<string, unknown>).composer;
    expect(() => checkPack(missing, 'p')).toThrow(/\/roles\/composer: missing/);
  });

  it('checks what a schema cannot: regular expressions compile, vocabulary words exist', () => {
    expect(() => checkOverride({ conversationPath: '^/c/(' }, 'sites/chatgpt.json')).toThrow(/\/conversationPath: .*Invalid regular expression/);
    expect(() => checkOverride({ roles: { send: [{ kind: 'aria', css: 'button', name: '@sned' }] } }, 'o')).toThrow(/no word @sned/);
    expect(() => checkOverride({ roles: { send: [{ kind: 'text', css: 'button', text: '/([/i' }] } }, 'o')).toThrow(/\/roles\/send\/0\/text/);
    expect(() => checkOverride({ roles: { sned: [] } }, 'o')).toThrow(InvalidPack);
    // Catastrophic backtracking, where the override's patterns run (in Node and in the page).
    expect(() => checkOverride({ conversationPath: '^/c/(a+)+$' }, 'o')).toThrow(/\/conversationPath: .*backtrack/);
    expect(() => checkOverride({ roles: { send: [{ kind: 'text', css: 'button', text: '/(\\w+\\s?)*$/i' }] } }, 'o')).toThrow(/\/roles\/send\/0\/text: .*backtrack/);
    expect(() => checkOverride({ roles: { send: [{ kind: 'text', css: 'button', text: '/^send( message)?$/i' }] } }, 'o')).not.toThrow();
    expect(() => checkOverride({ provider: 'claude' }, 'o')).toThrow(InvalidPack);
  });

  it('merges an override role by role over the pack', () => {
    const override = checkOverride({ version: 9, roles: { send: [{ kind: 'aria', css: 'form button', name: '@send' }] } }, 'o');
    const merged = compileSite(mergeOverride(base, override), { file: '/data/sites/chatgpt.json', value: override });
    expect(merged.version).toBe(9);
    expect(merged.override).toBe('/data/sites/chatgpt.json');
    expect(merged.roles.send).toEqual([{ kind: 'aria', css: 'form button', name: '@send' }]);
    expect(merged.roles.composer).toEqual(base.roles.composer);
    expect(merged.page.send![0]!.name).toEqual([uiWordPattern('send'), 'iu']);
  });
});

describe('the UI vocabulary', () => {
  it('matches a control’s whole name in the eight languages, and nothing longer', () => {
    const send = new RegExp(uiWordPattern('send'), 'iu');
    for (const name of ['Send', 'Send prompt', 'Senden', 'Envoyer', 'Enviar', 'Отправить', '发送', '送信']) expect(send.test(name), name).toBe(true);
    for (const name of ['Send feedback', 'Resend code', 'Stop']) expect(send.test(name), name).toBe(false);
    const stop = new RegExp(uiWordPattern('stop'), 'iu');
    for (const name of ['Stop streaming', 'Остановить', '停止生成', 'Stoppen', 'Arrêter']) expect(stop.test(name), name).toBe(true);
  });
});

describe('site pack overrides on disk', () => {
  let dir: string;
  let book: SiteBook | null = null;
  afterEach(() => {
    book?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are checked, merged and picked up again when the file changes, without a restart; a bad one keeps the pack in force', async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatbridge-sites-'));
    const notes: SiteBookNote[] = [];
    const file = join(dir, 'sites', 'claude.json');
    book = new SiteBook(join(dir, 'sites'), (n) => notes.push(n), { claude: 'http://127.0.0.1:1' });
    await book.open();
    expect(book.site('claude').override).toBeNull();
    expect(book.site('claude').baseUrl).toBe('http://127.0.0.1:1');

    writeFileSync(file, JSON.stringify({ version: 7, roles: { send: [{ kind: 'aria', css: 'button', name: '@send' }] } }));
    await until(() => book!.site('claude').version === 7, 15_000, 'the override');
    expect(book.site('claude').override).toBe(file);
    expect(book.site('claude').baseUrl).toBe('http://127.0.0.1:1');
    expect(book.site('claude').roles.send).toHaveLength(1);
    expect(notes.at(-1)).toMatchObject({ level: 'info', message: expect.stringContaining('roles: send') });

    writeFileSync(file, '{ "roles": { "send": [ { "kind": "aria" } ] } }');
    await until(() => book!.status().find((s) => s.provider === 'claude')!.error !== null, 15_000, 'the refusal');
    expect(book.site('claude').version).toBe(7);
    const refusals = notes.filter((n) => n.level === 'warn');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.message).toMatch(/claude\.json: \/roles\/send\/0.*css/);

    unlinkSync(file);
    await until(() => book!.site('claude').override === null, 15_000, 'the removal');
    expect(book.site('claude').version).toBe(BUILT_IN_PACKS.claude.version);
    expect(book.status().find((s) => s.provider === 'claude')!.error).toBeNull();
  });
});
