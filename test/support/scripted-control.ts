import type { AgentControl, LoginStep } from '../../main/core/agent-control.js';
import type { AttachmentRules } from '../../main/core/attachments.js';
import type { Provider, VariantInfo } from '../../main/core/providers.js';
import { AgentNotRunning } from '../../main/core/agent-control.js';
import type { Service } from '../../main/service/service.js';
import { ScriptedAgent } from './scripted-agent.js';

/**
 * The agents' control for the scripted server, so the command line can add, check and
 * remove agents without a browser: a new agent starts logged out with its login open, and
 * the login's second "check now" (the person saying they are in) logs it in.
 */
export class ScriptedControl implements AgentControl {
  private readonly logins = new Set<string>();
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly service: Service) {}

  async start(agentId: string): Promise<void> {
    const row = this.service.pool.get(agentId);
    if (!row || this.service.pool.liveAgent(agentId)) return;
    const agent = new ScriptedAgent(row.id, row.provider);
    agent.setReadiness('needs_login');
    this.service.pool.attach(agent);
  }

  async remove(agentId: string): Promise<void> {
    this.endLogIn(agentId);
  }

  async logIn(agentId: string): Promise<void> {
    const agent = this.service.pool.liveAgent(agentId) as ScriptedAgent | undefined;
    if (!agent) throw new AgentNotRunning("This agent's browser is not running yet.");
    if (this.logins.delete(agentId)) agent.setReadiness('idle');
    else if (agent.readiness() !== 'idle') this.logins.add(agentId);
    this.changed();
  }

  endLogIn(agentId: string): void {
    if (this.logins.delete(agentId)) this.changed();
  }

  loginStep(agentId: string): LoginStep | null {
    return this.logins.has(agentId) ? 'login' : null;
  }

  /** A made-up pack's variants: a scripted agent answers under any of them, with model `model-<variant>`. */
  variants(provider: Provider): readonly VariantInfo[] {
    return provider === 'claude' ? ['opus', 'sonnet'].map((id) => ({ id, timeoutMs: null })) : [];
  }

  /** A scripted agent takes any file (its answer lists what it got): no rule beyond the contract's. */
  attachmentRules(): AttachmentRules {
    return { types: null, maxFileBytes: null, maxFiles: null };
  }

  screen(): null {
    return null;
  }

  async checkSite(): Promise<never> {
    throw new AgentNotRunning('A scripted agent has no page to check.');
  }

  async recheck(agentId: string): Promise<boolean> {
    return this.service.pool.liveAgent(agentId)?.readiness() === 'idle';
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
