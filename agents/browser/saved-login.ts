import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

type Cookie = Awaited<ReturnType<BrowserContext['cookies']>>[number];

/** One site's local storage, as Playwright restores it into a new context. */
export interface OriginStorage {
  origin: string;
  localStorage: { name: string; value: string }[];
}

/**
 * What an agent's login is between two starts of its browser context: the context's cookies
 * (session cookies included, as a profile that restores its session would keep them) and the
 * local storage of the sites its page has been on. This is Playwright's storage state, so a
 * new context takes it as it is.
 */
export interface SavedLogin {
  cookies: Cookie[];
  origins: OriginStorage[];
}

/** The file of an agent's login, in its folder under the profiles folder. */
export const loginFile = (agentDir: string) => join(agentDir, 'login.json');

/** The saved login, or null for an agent that has none yet (or a file that is not one). */
export async function readLogin(agentDir: string): Promise<SavedLogin | null> {
  let text: string;
  try {
    text = await readFile(loginFile(agentDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as SavedLogin;
    return Array.isArray(parsed.cookies) && Array.isArray(parsed.origins) ? parsed : null;
  } catch {
    return null;
  }
}

/** Written whole or not at all (a stop mid-write keeps the previous login), owner-only like the rest of the data folder. */
export async function writeLogin(agentDir: string, login: SavedLogin): Promise<void> {
  await mkdir(agentDir, { recursive: true, mode: 0o700 });
  const temporary = `${loginFile(agentDir)}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(login), { mode: 0o600 });
  await rename(temporary, loginFile(agentDir));
}

/**
 * The local storage of the origin the page is on, read through DevTools' storage domain: no
 * script runs in the page's world, where the site's own code could see or change the call.
 * Null when the page is on no site (a blank or error page) or cannot be asked.
 */
export async function pageStorage(cdp: CDPSession, page: Page): Promise<OriginStorage | null> {
  let origin: string;
  try {
    const url = new URL(page.url());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    origin = url.origin;
  } catch {
    return null;
  }
  try {
    const { entries } = (await cdp.send('DOMStorage.getDOMStorageItems', { storageId: { securityOrigin: origin, isLocalStorage: true } })) as {
      entries: [string, string][];
    };
    return { origin, localStorage: entries.map(([name, value]) => ({ name, value })) };
  } catch {
    return null;
  }
}

/** The login as it stands: the context's cookies, and the page's site's storage over what was kept of it before. */
export async function currentLogin(context: BrowserContext, cdp: CDPSession, page: Page, before: SavedLogin | null): Promise<SavedLogin> {
  const [cookies, storage] = await Promise.all([context.cookies(), pageStorage(cdp, page)]);
  const others = (before?.origins ?? []).filter((o) => o.origin !== storage?.origin);
  return { cookies, origins: storage && storage.localStorage.length ? [...others, storage] : others };
}

/** After a navigation, the site's new cookies and storage are saved once the page has settled this long. */
const AFTER_NAVIGATION_MS = 2_000;
/** A site that renews its session in the background, without navigating, is saved this often. */
const EVERY_MS = 5 * 60_000;

/**
 * Keeps an agent's login on disk while its context is open: after each navigation of its page
 * (a login finished, a conversation opened), every few minutes, and a last time when it
 * closes. A save that finds nothing changed writes nothing.
 */
export class LoginKeeper {
  private written: string;
  private last: SavedLogin | null;
  private settling: NodeJS.Timeout | null = null;
  private readonly every: NodeJS.Timeout;
  private saving: Promise<void> = Promise.resolve();
  private cdp: Promise<CDPSession> | null = null;
  private stopped = false;

  constructor(
    private readonly agentDir: string,
    private readonly context: BrowserContext,
    private readonly page: Page,
    restored: SavedLogin | null,
  ) {
    this.last = restored;
    this.written = JSON.stringify(restored);
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame() || this.stopped) return;
      if (this.settling) clearTimeout(this.settling);
      this.settling = setTimeout(() => void this.save(), AFTER_NAVIGATION_MS);
      this.settling.unref();
    });
    this.every = setInterval(() => void this.save(), EVERY_MS);
    this.every.unref();
  }

  /** Saves now, after any save under way; never throws (a closed page just keeps the last save). */
  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      try {
        this.cdp ??= this.context.newCDPSession(this.page);
        const login = await currentLogin(this.context, await this.cdp, this.page, this.last);
        const text = JSON.stringify(login);
        if (text === this.written) return;
        await writeLogin(this.agentDir, login);
        this.last = login;
        this.written = text;
      } catch {
        // The context went away meanwhile: what was saved last stands.
      }
    });
    return this.saving;
  }

  /** The last save, before the context closes; no save after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.settling) clearTimeout(this.settling);
    clearInterval(this.every);
    await this.save();
  }
}
