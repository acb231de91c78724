import type { WaitReason } from '../core/wait-reason.js';
import { isProvider, PROVIDER_NAMES } from '../core/providers.js';
import type { Settings } from '../settings/settings-store.js';
import { variantCapUsedUp } from './variant-caps.js';
import { isUsable, type ClusterAgents } from './cluster-agents.js';
import { matches, type JobConstraint, type Scheduler } from './scheduler.js';
import { CLI } from '../core/cli-name.js';
import { filesRefused } from '../core/attachments.js';

/** A wait that only a person can end. */
const person = (text: string): WaitReason => ({ text, until: null, needsPerson: true });

/**
 * Why a queued job is not running now on any device. A job with no agent for it keeps waiting
 * (the contract: it runs as soon as one is added), so this is what makes that wait visible:
 * in the dashboard's job view, the log, and the message of a 504 at the end of a hold.
 */
export function waitReason(
  job: JobConstraint,
  deps: { cluster: ClusterAgents; scheduler: Scheduler; settings: Settings },
): WaitReason {
  const { cluster, scheduler, settings } = deps;
  if (settings.paused) return person(`the agents are paused (resume them in the dashboard or with ${CLI} resume)`);
  const provider = job.req_provider && isProvider(job.req_provider) ? PROVIDER_NAMES[job.req_provider] : null;
  const pinned = job.req_agent_id ? cluster.get(job.req_agent_id) : undefined;
  const who = pinned ? `its agent ${pinned.name}` : provider ? `every ${provider} agent` : 'every agent';
  const candidates = cluster.online().filter((a) => matches(a, job, scheduler.attachmentRules));
  if (candidates.length === 0) {
    // Agents of the job's choice are there, but no site of theirs takes its files.
    const refusing = cluster.online().find((a) => matches(a, job));
    if (refusing && job.attachments?.length) {
      const why = filesRefused(scheduler.attachmentRules(refusing.provider), job.attachments);
      return person(`no paired account's site takes its files (${PROVIDER_NAMES[refusing.provider]}: ${why})`);
    }
    const offline = cluster.devices().filter((d) => !d.online && d.agents.some((a) => matches(a, job, scheduler.attachmentRules)));
    if (offline.length > 0) {
      const whose = pinned ? `the device of its agent ${pinned.name} is` : `every device with ${provider ? `a ${provider}` : 'an'} agent is`;
      return person(`${whose} offline (${offline.map((d) => d.name).join(', ')})`);
    }
    if (job.req_agent_id) return person('the agent it must run on was removed');
    const add = `add one in the dashboard or with ${CLI} agents add ${job.req_provider ?? 'PROVIDER'}`;
    return person(`no ${provider ? `${provider} ` : ''}account is paired (${add})`);
  }
  const states = candidates.map((a) => a.state);
  if (!candidates.some(isUsable)) {
    if (states.every((s) => s === 'paused')) return person(`${who} is paused (enable it on the Agents page)`);
    const none = pinned ? `its agent ${pinned.name} is not` : `no ${provider ? `${provider} ` : ''}agent is`;
    const out = states.filter((s) => s !== 'paused');
    // Set aside (a changed site, a verification, a page that would not load): it looks again on its own.
    if (out.every((s) => s === 'error')) return person(`${who} is set aside until its page works again (see the Agents page)`);
    if (out.every((s) => s === 'needs_login')) return person(`${none} logged in (log in on the Agents page)`);
    return person(`${none} ready: logged out or set aside until its page works again (see the Agents page)`);
  }
  const ready = candidates.filter((a) => a.ready);
  if (ready.length === 0) {
    const rests = candidates.map((a) => a.cooldown_until).filter((t): t is number => t !== null);
    if (states.every((s) => s === 'resting' || s === 'paused' || s === 'needs_login' || s === 'error') && rests.length > 0) {
      return { text: `${who} is resting after the provider's usage limit`, until: Math.min(...rests), needsPerson: false };
    }
    const pauses = candidates.map((a) => a.pause_until).filter((t): t is number => t !== null);
    if (pauses.length > 0 && states.every((s) => s !== 'busy')) {
      return { text: `${who} is pausing between jobs (a guard against bans)`, until: Math.min(...pauses), needsPerson: false };
    }
    return { text: `${who} is busy with another job`, until: null, needsPerson: false };
  }
  if (!ready.some((a) => scheduler.underCaps(a, settings))) {
    const frees = ready.map((a) => scheduler.capsFreeAt(a, settings)).filter((t): t is number => t !== null);
    return { text: 'the hourly cap is used up for every agent that could run it', until: frees.length > 0 ? Math.min(...frees) : null, needsPerson: false };
  }
  const capped = scheduler.variantCapped(job, settings);
  if (capped) return { text: variantCapUsedUp(capped), until: capped.frees, needsPerson: capped.frees === null };
  return { text: 'an agent is free: it starts in queue order', until: null, needsPerson: false };
}
