import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserHost, BrowserSession, OpenOptions } from '../core/browser-host.js';
import type { Provider } from '../core/providers.js';

/** `view`: a WebContentsView of the app. `chrome`: a context of its own in the installed Chrome the agents on it share. */
export type HostKind = 'view' | 'chrome';
export const HOST_KINDS: readonly HostKind[] = ['view', 'chrome'];

/**
 * Google refuses to sign in inside embedded browsers ("This browser or app may not be
 * secure"), so Gemini's accounts start on Chrome; every other provider in the app's view.
 */
export function defaultHost(provider: Provider): HostKind {
  return provider === 'gemini' ? 'chrome' : 'view';
}

const FILE = 'desktop-hosts.json';

/**
 * Which host each agent uses, chosen per agent in the dashboard and kept in the data dir
 * (a desktop-only setting: the headless service always uses Chrome).
 */
export class HostChoices {
  private chosen: Record<string, HostKind>;

  constructor(private readonly dataDir: string) {
    try {
      const stored = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as Record<string, unknown>;
      this.chosen = Object.fromEntries(Object.entries(stored).filter((e): e is [string, HostKind] => HOST_KINDS.includes(e[1] as HostKind)));
    } catch {
      this.chosen = {};
    }
  }

  get(agentId: string, provider: Provider): HostKind {
    return this.chosen[agentId] ?? defaultHost(provider);
  }

  set(agentId: string, kind: HostKind): void {
    this.chosen[agentId] = kind;
    const tmp = join(this.dataDir, `${FILE}.${process.pid}`);
    writeFileSync(tmp, JSON.stringify(this.chosen), { mode: 0o600 });
    renameSync(tmp, join(this.dataDir, FILE));
  }
}

/** One BrowserHost for the agent runtime that opens each agent on the host chosen for it. */
export class HostRouter implements BrowserHost {
  constructor(
    private readonly hosts: Record<HostKind, BrowserHost>,
    private readonly choices: HostChoices,
    private readonly providerOf: (agentId: string) => Provider | undefined,
  ) {}

  /** The kind of host an agent is on (decided at each open, so a change applies on restart). */
  kindOf(agentId: string): HostKind {
    const provider = this.providerOf(agentId);
    if (!provider) throw new Error(`No agent ${agentId}`);
    return this.choices.get(agentId, provider);
  }

  async open(agentId: string, options?: OpenOptions): Promise<BrowserSession> {
    return this.hosts[this.kindOf(agentId)].open(agentId, options);
  }

  /** The agent may have run on either host over its life: both forget it. */
  async forget(agentId: string): Promise<void> {
    await Promise.all(Object.values(this.hosts).map((h) => h.forget(agentId)));
  }
}
