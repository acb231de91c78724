import { join } from 'node:path';
import type { AgentRoster } from '../../main/core/agent-roster.js';
import { diagnosticsRoot } from '../../main/core/diagnostics.js';
import { ChromiumHost } from '../browser/chromium-host.js';
import { findBrowser, NoBrowserFound } from '../browser/find-browser.js';
import { SiteBook, type SiteBookNote } from '../providers/site-book.js';
import { AgentRuntime } from './agent-runtime.js';
import { DiagnosticsKeeper } from './diagnostics.js';

/** What the agents of one data folder share: the packs in force (with the user's overrides) and where failures are kept. */
export async function openSites(dataDir: string, notes: (note: SiteBookNote) => void, baseUrls = {}): Promise<{ sites: SiteBook; diagnostics: DiagnosticsKeeper }> {
  const sites = new SiteBook(join(dataDir, 'sites'), notes, baseUrls);
  await sites.open();
  return { sites, diagnostics: new DiagnosticsKeeper(diagnosticsRoot(dataDir)) };
}

/**
 * Starts a headless browser agent for every paired account on the real provider sites;
 * accounts added later start on the same runtime. Without a browser the service still
 * runs (jobs queue) and says why in one line.
 */
export async function startBrowserAgents(
  roster: AgentRoster,
  dataDir: string,
  warn: (line: string) => void,
  notes: (note: SiteBookNote) => void,
): Promise<{ runtime: AgentRuntime; sites: SiteBook } | null> {
  let executable: string;
  try {
    executable = findBrowser();
  } catch (error) {
    if (!(error instanceof NoBrowserFound)) throw error;
    warn(`agents offline: ${error.message}`);
    return null;
  }
  const { sites, diagnostics } = await openSites(dataDir, notes);
  const runtime = new AgentRuntime(roster, ChromiumHost.launching(join(dataDir, 'profiles'), executable), sites, diagnostics);
  await runtime.start();
  return { runtime, sites };
}
