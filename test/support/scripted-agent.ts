import {
  AgentFailure,
  VariantUnavailable,
  type Agent,
  type AgentFailureKind,
  type AgentReadiness,
  type AgentResult,
  type AgentTask,
  type CollectTask,
} from '../../main/core/agent.js';
import type { Provider } from '../../main/core/providers.js';
import type { Service } from '../../main/service/service.js';
import type { AttachmentMeta } from '../../main/core/attachments.js';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * An agent for testing the queue without a browser. The prompt scripts it:
 *   [[ms=N]]              answer after N ms (default: at once)
 *   [[fail=KIND]]         throw AgentFailure(KIND) on every attempt
 *   [[fail-once=KIND]]    throw it on the first attempt of this prompt only (on any agent
 *                         of the process)
 *   [[hang]]              never answer; only an abort ends the attempt
 *   [[hang-on=AGENT]]     the agent of that id never gets to send it (only an abort ends its run); others answer
 *   [[no-address]]        the prompt goes, but the page never gives its conversation an address
 *   [[typing=N]]          the prompt goes only N ms after the run began (an abort before leaves it unsent)
 *   [[stream=N/MS]]       publishes the first N of the answer's N+1 equal pieces (onDelta), MS ms
 *                         apart, before answering (the last is left to the service)
 *   [[stream-wrong]]      publishes a piece the answer does not begin with
 *   [[collect=HOW]]       what reopening the conversation finds (`collect`): `answer`, `none`, or
 *                         `hang` (only an abort ends it)
 * The answer is `echo(<agent id>#<turn>): <prompt>`, a collected one `collected(<agent id>):
 * <prompt>`; the conversation address is `script://<agent id>/<n>`, told as the prompt goes
 * (`onSent`), and a continued conversation keeps its address. A task with a
 * variant the agent's `offers` lacks is refused (VariantUnavailable, nothing answered);
 * one it offers answers with model `model-<variant>`.
 * A task's files are read from disk as the run begins, as a page's file control would read
 * them: each run records what it found there (name as on disk, size, SHA-256, the folder's
 * mode), and the answer ends with one line a file, as a simulated site's does:
 * `- attachment: <filename> (<bytes> bytes, sha256 <hex>)`.
 */
/** Prompts that already failed once, shared by every agent: a retry elsewhere succeeds. */
const failedOnce = new Set<string>();

export class ScriptedAgent implements Agent {
  /** What each run was asked, and how it ended ('answered' or the abort reason / failure kind). */
  readonly runs: { prompt: string; conversation: string | null; variant: string | null; files: FileSeen[]; ended?: string }[] = [];
  /** Each conversation reopened to collect an answer, and how that ended (as `runs`). */
  readonly collects: { prompt: string; conversation: string; ended?: string }[] = [];
  /** The variants the account offers; null: any. */
  offers: string[] | null = null;
  private state: AgentReadiness = 'idle';
  private readonly listeners: (() => void)[] = [];
  private conversations = 0;
  private readonly turns = new Map<string, number>();
  private active = false;

  constructor(
    readonly id: string,
    readonly provider: Provider,
  ) {}

  readiness(): AgentReadiness {
    return this.state;
  }

  setReadiness(state: AgentReadiness): void {
    this.state = state;
    for (const l of this.listeners) l();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  run(task: AgentTask): Promise<AgentResult> {
    const files = (task.attachments ?? []).map(seen);
    const record: ScriptedAgent['runs'][number] = { prompt: task.prompt, conversation: task.conversation, variant: task.variant, files };
    this.runs.push(record);
    return this.busy(record, task.signal, () => this.answer(task));
  }

  collect(task: CollectTask): Promise<AgentResult> {
    const record: ScriptedAgent['collects'][number] = { prompt: task.prompt, conversation: task.sent.conversation };
    this.collects.push(record);
    return this.busy(record, task.signal, async () => {
      const how = /\[\[collect=(\w+)\]\]/.exec(task.prompt)?.[1];
      if (how === 'hang') await sleep(Infinity, task.signal);
      if (how !== 'answer') throw new AgentFailure('timed_out', 'scripted: the conversation reopened shows no answer');
      return { text: `collected(${this.id}): ${task.prompt}`, conversation: task.sent.conversation, modelUsed: null };
    });
  }

  /** One job at a time; `record.ended` says how it ended. */
  private async busy(record: { ended?: string }, signal: AbortSignal, work: () => Promise<AgentResult>): Promise<AgentResult> {
    if (this.active) throw new Error(`${this.id} was given a second job while busy`);
    this.active = true;
    try {
      const result = await work();
      record.ended = 'answered';
      return result;
    } catch (error) {
      record.ended = error instanceof AgentFailure ? error.kind : String(signal.reason ?? error);
      throw error;
    } finally {
      this.active = false;
    }
  }

  private async answer(task: AgentTask): Promise<AgentResult> {
    const p = task.prompt;
    if (task.variant && this.offers && !this.offers.includes(task.variant)) {
      throw new VariantUnavailable(task.variant, this.offers, `scripted: ${this.id} does not offer "${task.variant}".`);
    }
    if (task.variant && p.includes(`[[no-picker-on=${this.id}]]`)) {
      throw new VariantUnavailable(task.variant, null, `scripted: no model picker opens on ${this.id}'s page.`);
    }
    const fail = /\[\[fail=(\w+)\]\]/.exec(p)?.[1];
    if (fail) throw new AgentFailure(fail as AgentFailureKind, `scripted ${fail}`);
    const failOnce = /\[\[fail-once=(\w+)\]\]/.exec(p)?.[1];
    if (failOnce && !failedOnce.has(p)) {
      failedOnce.add(p);
      throw new AgentFailure(failOnce as AgentFailureKind, `scripted ${failOnce}`);
    }
    const ms = p.includes('[[hang]]') ? Infinity : Number(/\[\[ms=(\d+)\]\]/.exec(p)?.[1] ?? 0);
    const typing = p.includes(`[[hang-on=${this.id}]]`) ? Infinity : Number(/\[\[typing=(\d+)\]\]/.exec(p)?.[1] ?? 0);
    if (typing > 0) await sleep(typing, task.signal);
    const conversation = task.conversation ?? `script://${this.id}/${this.conversations + 1}`;
    await task.onSent?.({ conversation: p.includes('[[no-address]]') ? null : conversation, turnsBefore: this.turns.get(conversation) ?? 0 });
    if (ms > 0) await sleep(ms, task.signal);
    if (task.signal.aborted) throw task.signal.reason;
    const turn = (this.turns.get(conversation) ?? 0) + 1;
    const received = this.runs.at(-1)!.files.map((f) => `\n- attachment: ${f.filename} (${f.bytes} bytes, sha256 ${f.sha256})`).join('');
    const text = `echo(${this.id}#${turn}): ${p}${received}`;
    const stream = /\[\[stream=(\d+)\/(\d+)\]\]/.exec(p);
    if (stream) {
      const n = Number(stream[1]);
      const size = Math.ceil(text.length / (n + 1));
      for (let i = 0; i < n; i++) {
        task.onDelta?.(text.slice(i * size, (i + 1) * size));
        await sleep(Number(stream[2]), task.signal);
      }
    }
    if (p.includes('[[stream-wrong]]')) task.onDelta?.('not the answer');
    if (!task.conversation) this.conversations++;
    this.turns.set(conversation, turn);
    return { text, conversation, modelUsed: task.variant ? `model-${task.variant}` : null };
  }

  async close(): Promise<void> {}
}

/** A file of a task as found on disk (its name there, its bytes' size and SHA-256), with where it was. */
export interface FileSeen extends AttachmentMeta {
  path: string;
  /** The permission bits of the folder holding the file's own folder (the attempt's). */
  folderMode: number;
}

function seen(file: AttachmentMeta & { path: string }): FileSeen {
  const data = readFileSync(file.path);
  return {
    filename: basename(file.path),
    media_type: file.media_type,
    bytes: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    path: file.path,
    folderMode: statSync(dirname(dirname(file.path))).mode & 0o777,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/**
 * Attaches one ScriptedAgent per requested slot, reusing the agent rows named
 * `<provider>-<n>` so a restarted service gets its agents (and their conversations) back.
 */
export function attachScriptedAgents(service: Service, counts: Partial<Record<Provider, number>>): ScriptedAgent[] {
  const agents: ScriptedAgent[] = [];
  for (const [provider, count] of Object.entries(counts) as [Provider, number][]) {
    for (let i = 1; i <= count; i++) {
      const name = `${provider}-${i}`;
      const row = service.pool.list().find((a) => a.name === name) ?? service.pool.create(provider, name);
      const agent = new ScriptedAgent(row.id, provider);
      service.pool.attach(agent);
      agents.push(agent);
    }
  }
  return agents;
}
