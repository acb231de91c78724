import { join } from 'node:path';
import type { AgentRoster } from '../../main/core/agent-roster.js';
import { ChromiumHost } from '../browser/chromium-host.js';
import { findBrowser, NoBrowserFound } from '../browser/find-browser.js';
import { PROVIDER_SITES } from '../providers/index.js';
import { AgentRuntime } from './agent-runtime.js';

/**
 * Starts a headless browser agent for every paired account on the real provider sites;
 * accounts added later start on the same runtime. Without a browser the service still
 * runs (jobs queue) and says why in one line.
 */
export async function startBrowserAgents(roster: AgentRoster, dataDir: string, warn: (line: string) => void): Promise<AgentRuntime | null> {
  let executable: string;
  try {
    executable = findBrowser();
  } catch (error) {
    if (!(error instanceof NoBrowserFound)) throw error;
    warn(`agents offline: ${error.message}`);
    return null;
  }
  const runtime = new AgentRuntime(roster, new ChromiumHost(join(dataDir, 'profiles'), executable), PROVIDER_SITES);
  await runtime.start();
  return runtime;
}
