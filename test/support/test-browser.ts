import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { SharedChromium } from '../../agents/browser/shared-chromium.js';

let chromium: SharedChromium | null = null;

/**
 * This test process's Chromium, launched once and kept until the process ends: its files
 * (which share the process, vitest.config.ts) take it in turn, their agents a context each
 * as in `serve`, their pages a context each. A launch costs about a CPU-second of the
 * browser, its GPU process and zygotes; once a file, that was some 80 launches a run.
 * Chromium ends with the process, whose pipe to it closes.
 */
export function testChromium(): SharedChromium {
  // The one-time note (no sandbox as root) is for a person starting ChatBridge.
  chromium ??= new SharedChromium({ executable: findBrowser(), name: join(tmpdir(), `chatbridge-tests-${process.pid}`), keepOpen: true, warn: () => {} });
  return chromium;
}

/** The process's Chromium for a file's page tests, each of which opens a context of its own and closes it. */
export const takeTestBrowser = (): Promise<Browser> => testChromium().take();

/** Gives back what `takeTestBrowser` gave (if it did): the browser itself stays for the next file. */
export async function giveBackTestBrowser(browser: Browser | undefined | null): Promise<void> {
  if (browser) await testChromium().giveBack();
}
