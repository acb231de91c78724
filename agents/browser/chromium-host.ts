import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { installPageHelpers } from '../providers/page-helpers.js';
import { sessionLoss, type BrowserHost, type BrowserSession } from './browser-host.js';

/**
 * The headless host: one persistent Chromium profile per agent under the data dir, driven
 * over Playwright's pipe (no debugging port). Used by `serve`, the tests, and for sites
 * that refuse embedded browsers.
 */
export class ChromiumHost implements BrowserHost {
  constructor(
    private readonly profilesDir: string,
    /** The browser's path, or how to find it when the first agent opens. */
    private readonly executable: string | (() => string),
    private readonly headless = true,
  ) {}

  async open(agentId: string): Promise<BrowserSession> {
    const context = await chromium.launchPersistentContext(join(this.profilesDir, agentId), {
      executablePath: typeof this.executable === 'string' ? this.executable : this.executable(),
      headless: this.headless,
      viewport: { width: 1280, height: 900 },
      args: [
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // Chromium refuses to sandbox as root (containers, CI); elsewhere keep the sandbox.
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      ],
    });
    await context.addInitScript(installPageHelpers);
    const page = context.pages()[0] ?? (await context.newPage());
    const loss = sessionLoss();
    context.on('close', loss.fire);
    page.on('crash', loss.fire);
    page.on('close', loss.fire);
    return {
      page,
      onLost: loss.onLost,
      close: async () => {
        loss.silence();
        await context.close().catch(() => {});
      },
    };
  }

  async forget(agentId: string): Promise<void> {
    // Chromium's helper processes can still be writing for a moment after it closed.
    await rm(join(this.profilesDir, agentId), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
