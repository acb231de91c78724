import type { Page } from 'playwright-core';
import type { AttachmentRules } from '../../main/core/attachments.js';
import type { Provider, VariantInfo } from '../../main/core/providers.js';
import { AgentNotRunning, type AgentControl, type AgentScreen, type LoginStep, type LoginWindow } from '../../main/core/agent-control.js';
import { Listeners } from '../../main/core/listeners.js';
import { AgentBusy, type SiteCheck } from '../../main/core/site-check.js';
import type { AgentRuntime } from './agent-runtime.js';
import { PageScreen } from './page-screen.js';
import { Pairing, pairingPage } from './pairing.js';

/** Opens a window onto an agent's page (the desktop app); without one, the dashboard shows the page. */
export type LoginWindows = (agentId: string, title: string) => LoginWindow;

/**
 * The agent runtime as the dashboard drives it: new agents' browsers, removal, and logins
 * (pairing) shown either in the desktop app's windows or, headless, in the dashboard
 * itself through a PageScreen of the agent's page.
 */
export class RuntimeControl implements AgentControl {
  private readonly logins = new Map<string, { pairing: Pairing; window: LoginWindow }>();
  private readonly screens = new Map<string, PageScreen>();
  private readonly changes = new Listeners();

  constructor(
    private readonly runtime: AgentRuntime,
    private readonly windows: LoginWindows | null = null,
  ) {}

  variants(provider: Provider): readonly VariantInfo[] {
    return this.runtime.site(provider)?.variants.list.map((v) => ({ id: v.id, timeoutMs: v.timeoutMs })) ?? [];
  }

  attachmentRules(provider: Provider): AttachmentRules | null {
    return this.runtime.site(provider)?.attachments?.rules ?? null;
  }

  start(): Promise<void> {
    return this.runtime.start();
  }

  async remove(agentId: string): Promise<void> {
    this.endLogIn(agentId);
    this.screens.delete(agentId);
    await this.runtime.remove(agentId);
  }

  async logIn(agentId: string): Promise<void> {
    const under = this.logins.get(agentId);
    if (under) return under.pairing.checkNow();
    const agent = this.runtime.agent(agentId);
    const page = agent?.page();
    const site = agent && this.runtime.site(agent.provider);
    if (!agent || !page || !site) throw new AgentNotRunning("This agent's browser is not running yet; try again in a moment.");
    const window = this.windows?.(agentId, `Log in to ${site.name}`) ?? dashboardWindow();
    const pairing = new Pairing(agent, site, pairingPage(page), window);
    this.logins.set(agentId, { pairing, window });
    pairing.onStep(() => this.changed());
    void pairing.run().finally(() => {
      if (this.logins.get(agentId)?.pairing === pairing) this.logins.delete(agentId);
      this.changed();
    });
  }

  endLogIn(agentId: string): void {
    this.logins.get(agentId)?.window.close();
  }

  loginStep(agentId: string): LoginStep | null {
    const step = this.logins.get(agentId)?.pairing.step();
    return step === 'login' || step === 'checking' ? step : null;
  }

  screen(agentId: string): AgentScreen | null {
    if (this.windows) return null;
    const page = this.runtime.agent(agentId)?.page();
    if (!page) return null;
    return this.screenOf(agentId, page);
  }

  async checkSite(agentId: string, { send }: { send: boolean }): Promise<SiteCheck> {
    const agent = this.runtime.agent(agentId);
    if (!agent) throw new AgentNotRunning("This agent's browser is not running yet; try again in a moment.");
    if (this.logins.has(agentId)) throw new AgentBusy("A login is under way in this agent's page: check its site once it is done.");
    // An override written a moment ago counts, even before the folder's change event.
    await this.runtime.refreshSites();
    const { site, inspection } = await agent.checkSite(send);
    return {
      agent_id: agentId,
      provider: site.provider,
      site: site.name,
      at: this.runtime.clock.now(),
      pack: { version: site.version, checked: site.checked, override: site.override, override_error: this.runtime.overrideError(site.provider) },
      page_url: inspection.pageUrl,
      sent: send,
      problem: inspection.problem,
      roles: inspection.roles,
      variants: inspection.variants,
      ok: inspection.problem === null && inspection.roles.every((r) => r.status !== 'missing'),
    };
  }

  async recheck(agentId: string): Promise<boolean> {
    const agent = this.runtime.agent(agentId);
    if (!agent) throw new AgentNotRunning("This agent's browser is not running yet; try again in a moment.");
    if (this.logins.has(agentId)) throw new AgentBusy("A login is under way in this agent's page: it is checked when the login ends.");
    // A fix just saved to an override is what the person wants looked at.
    await this.runtime.refreshSites();
    return agent.recheck();
  }

  onChange(listener: () => void): void {
    this.changes.on(listener);
  }

  /** One screen per page: a restarted browser brings a new page, and a new screen. */
  private screenOf(agentId: string, page: Page): PageScreen {
    const known = this.screens.get(agentId);
    if (known?.page === page) return known;
    const screen = new PageScreen(page);
    this.screens.set(agentId, screen);
    return screen;
  }

  private changed(): void {
    this.changes.emit();
  }
}

/** Headless, the login "window" is the dashboard's view of the page: closing it is the person's Cancel. */
function dashboardWindow(): LoginWindow {
  const closed = new Listeners();
  let open = true;
  return {
    show: () => {},
    close: () => {
      if (!open) return;
      open = false;
      closed.emit();
    },
    onClosed: (listener) => void closed.on(listener),
  };
}
