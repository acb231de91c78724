import type { CompletionRequest } from '../contract/schemas.js';
import { unknownAgent, type Profile } from '../contract/profile.js';
import { ApiError, invalid } from '../core/errors.js';
import type { WaitReason } from '../core/wait-reason.js';
import { variantCapUsedUp } from '../queue/variant-caps.js';
import type { ClusterAgents } from '../queue/cluster-agents.js';
import type { JobStore } from '../queue/job-store.js';
import { matches, type JobConstraint, type Scheduler } from '../queue/scheduler.js';
import { waitReason } from '../queue/wait-reason.js';
import type { SettingsStore } from '../settings/settings-store.js';

/**
 * Where a job may run: the agents a submission's fields allow (refusing what can never be
 * met), whether one can start it now, and why a queued one waits.
 */
export class JobPlacement {
  constructor(
    private readonly store: JobStore,
    private readonly scheduler: Scheduler,
    /** Every device's agents: a job may name, and wait for, an agent of any of them. */
    private readonly cluster: ClusterAgents,
    private readonly settings: SettingsStore,
    private readonly profile: Profile,
  ) {}

  /**
   * Resolves which agents may run the job, refusing constraints that can never be met.
   * A continued conversation is pinned to the agent that owns it.
   */
  async constraintOf(b: CompletionRequest, accountId: string | null): Promise<JobConstraint> {
    if (b.mode === 'continue' && b.conversation_ref === null) {
      throw invalid('conversation_ref', 'mode "continue" needs the conversation_ref of an earlier completion.');
    }
    if (b.mode === 'new' && b.conversation_ref !== null) {
      throw invalid('conversation_ref', 'conversation_ref is only accepted with mode "continue".');
    }
    let constraint: JobConstraint = { req_provider: b.provider, req_agent_id: b.agent_id };
    if (b.agent_id !== null) {
      const agent = this.cluster.get(b.agent_id);
      if (!agent) throw invalid('agent_id', unknownAgent(b.agent_id));
      if (b.provider !== null && agent.provider !== b.provider) {
        throw invalid('agent_id', this.profile.agentOfOtherProvider(b.agent_id, agent.provider, b.provider));
      }
      constraint = { req_provider: agent.provider, req_agent_id: agent.id };
    }
    if (b.conversation_ref !== null) {
      const conversation = await this.store.conversation(b.conversation_ref);
      // Another account's conversation is as unknown as a made-up one.
      if (!conversation || conversation.account_id !== accountId) throw invalid('conversation_ref', 'Unknown conversation_ref.');
      if (!this.cluster.get(conversation.agent_id)) {
        throw invalid('conversation_ref', 'The agent that held this conversation was removed; start a new one.');
      }
      if (b.provider !== null && conversation.provider !== b.provider) {
        throw invalid('provider', `This conversation belongs to ${conversation.provider}, not ${b.provider}.`);
      }
      if (b.agent_id !== null && conversation.agent_id !== b.agent_id) {
        throw invalid('agent_id', 'This conversation belongs to another agent.');
      }
      constraint = { req_provider: conversation.provider, req_agent_id: conversation.agent_id };
    }
    return constraint;
  }

  /**
   * For `wait: false` without `callback_url`: the 503 of a job that cannot start now on any
   * device, if it cannot. NO_DEVICE_ONLINE when the agents are paused, or no device that has
   * agents is online (with none anywhere, there is no device to be online: NO_AGENT_AVAILABLE).
   */
  whyCannotStartNow(constraint: JobConstraint): ApiError | undefined {
    const provider = constraint.req_provider;
    const details = provider ? { provider } : undefined;
    if (this.settings.get().paused) {
      return new ApiError('NO_DEVICE_ONLINE', 'The agents are paused; resume them to run jobs.');
    }
    const online = this.cluster.online();
    if (online.length === 0 && this.cluster.devices().some((d) => d.agents.length > 0)) {
      return new ApiError('NO_DEVICE_ONLINE', 'No device with agents is online; start ChatBridge on one of them.');
    }
    const ready = online.filter((a) => a.ready && matches(a, constraint, this.scheduler.attachmentRules));
    if (ready.length === 0) {
      return new ApiError('NO_AGENT_AVAILABLE', `No ${provider ? `${provider} ` : ''}agent is free to start the job now.`, details);
    }
    if (!ready.some((a) => this.scheduler.underCaps(a))) {
      return new ApiError('PROVIDER_RATE_LIMITED', 'The hourly cap is used up for every free agent that could run the job.', details);
    }
    const capped = this.scheduler.variantCapped(constraint);
    if (capped) return new ApiError('PROVIDER_RATE_LIMITED', `For this job ${variantCapUsedUp(capped)}.`, details);
    return undefined;
  }

  /** Why a queued job with this constraint has not started. */
  waitReason(job: JobConstraint): WaitReason {
    return waitReason(job, { cluster: this.cluster, scheduler: this.scheduler, settings: this.settings.get() });
  }
}
