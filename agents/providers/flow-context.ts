/**
 * What every step of the flow is given, and the one way it waits on a live page.
 *
 * A `FlowContext` is made once per job (or per look of the agent's own) and handed to each
 * step: the page, the site as it was when the job began (a user's override of its pack may
 * change between jobs, never within one), the pack as the page helpers take it, where notes
 * go, the waits for a missing role, the task's signal and the clock the page's waits follow.
 *
 * A wait on a live page is either `waitUntil` (a probe run again on a timer of that clock until
 * it holds, the deadline passes or the signal aborts) or a wait the page runs itself
 * (waitForFunction, a load, an address, the turn watch) ended early by the signal through
 * `inPage`. Nothing else in the flow reads the time or sleeps.
 */
import type { Page } from 'playwright-core';
import type { AgentNote } from '../../main/core/agent.js';
import { ATTACHMENT_LIMITS } from '../../main/core/attachments.js';
import { systemClock, type Clock } from '../../main/core/clock.js';
import type { WatchLimits } from './page-helpers.js';
import { packJson, type PagePackJson, type ProviderSite } from './site.js';

/** Where the flow tells what it did or saw that a person may want to know. */
export type Notes = (note: AgentNote) => void;

/**
 * The waits after which the flow decides that a role is missing: a new turn must appear
 * within `appearMs` (90 s while the page shows it is at work); without a finished signal,
 * the answer must have shown its controls and stayed still for `settleMs` (`lostSignalMs`
 * where the signal was expected: watch.ts). Tests of those failures shorten them.
 */
export interface FlowLimits extends WatchLimits {
  /** Once loaded, the page's composer (or what stands in for it) must show within this. */
  composerMs: number;
  /** A send the page shows it is working on is waited for this long before any other press (prompt-input.ts). */
  sentWorkingMs: number;
  /**
   * A variant's picker and toggles must show, and the picker's menu open, within this once the
   * composer has: ChatGPT's picker hydrates up to ~45 s after the textbox (research
   * 2026-11-26). Spent in full only on a picker that never shows or never opens.
   */
  controlsMs: number;
  /** A job's files must show attached, their uploads done, within this (attach-files.ts); tests of a stuck upload shorten it. */
  uploadMs: number;
}

export const FLOW_LIMITS: FlowLimits = {
  composerMs: 10_000,
  appearMs: 10_000,
  appearWorkingMs: 90_000,
  settleMs: 5_000,
  lostSignalMs: 30_000,
  sentWorkingMs: 45_000,
  controlsMs: 45_000,
  uploadMs: ATTACHMENT_LIMITS.uploadMs,
};

/**
 * The time a live page takes: real time. Never the service's clock, which a test may hold
 * still (a manual clock) while the page goes on working; tests of the waits themselves give
 * a context a clock of their own.
 */
export const pageTime: Clock = systemClock;

export interface FlowContext {
  readonly page: Page;
  readonly site: ProviderSite;
  /** `site.page` as the page helpers take it. */
  readonly pack: PagePackJson;
  readonly notes: Notes;
  readonly limits: FlowLimits;
  /** The task's signal: every wait ends, throwing its reason, within one poll of its abort. */
  readonly signal: AbortSignal;
  /** The clock every wait on the page follows (`pageTime`, but for tests of the waits). */
  readonly pageTime: Clock;
}

/**
 * A context on `page`; without a signal, one that never aborts (the agent's own looks at its
 * page: start, recheck, site check, which no job cancels), its own so that the waits of many
 * agents' looks do not gather on one signal.
 */
export function flowContext(page: Page, site: ProviderSite, parts: Partial<Pick<FlowContext, 'notes' | 'limits' | 'signal' | 'pageTime'>> = {}): FlowContext {
  return {
    page,
    site,
    pack: packJson(site.page),
    notes: parts.notes ?? (() => {}),
    limits: parts.limits ?? FLOW_LIMITS,
    signal: parts.signal ?? new AbortController().signal,
    pageTime: parts.pageTime ?? pageTime,
  };
}

/** What a wait needs of the context. */
export type Waiting = Pick<FlowContext, 'signal' | 'pageTime'>;

/**
 * Runs `probe` until it returns something truthy, which is returned; undefined once the
 * deadline `within` ms away has passed with the probe still false (it always runs at least
 * once). Between probes it sleeps `every` ms on the context's clock. Once the signal aborts,
 * the abort reason is thrown: at once while it sleeps, as soon as a running probe returns
 * otherwise (a probe is never abandoned half-way: it may press things). `probe` is told the
 * milliseconds left, for a wait of its own inside the page.
 */
export async function waitUntil<T>(ctx: Waiting, probe: (left: number) => Promise<T>, { within, every }: { within: number; every: number }): Promise<T | undefined> {
  const deadline = ctx.pageTime.now() + within;
  for (;;) {
    ctx.signal.throwIfAborted();
    const seen = await probe(deadline - ctx.pageTime.now());
    ctx.signal.throwIfAborted();
    if (seen) return seen;
    if (ctx.pageTime.now() >= deadline) return undefined;
    await pause(ctx, every);
  }
}

/** Gives the page `ms` (to answer a press, say) on the context's clock; the signal ends the pause, throwing its reason. */
export function pause(ctx: Waiting, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const { signal } = ctx;
    if (signal.aborted) return reject(signal.reason);
    const abort = () => {
      timer.cancel();
      reject(signal.reason);
    };
    const timer = ctx.pageTime.setTimer(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * A wait the page runs itself (waitForFunction, a load, an address, the turn watch), bounded
 * by its own timeout, that the signal ends early: the abort reason is thrown and the page's
 * wait, only a look, is left to end quietly.
 */
export function inPage<T>(ctx: Pick<FlowContext, 'signal'>, wait: Promise<T>): Promise<T> {
  return untilAborted(ctx, wait, () => Promise.resolve());
}

/**
 * Waits for `work`, unless the signal aborts first: then `onAbort` runs (press Stop) and the
 * abort reason is thrown. The abandoned work is left to fail quietly. Once begun, `onAbort`
 * is waited for whichever settles first: `work` may itself end on the same abort (its own
 * waits follow the signal), and the flow must not go on to a fresh chat, which leaves the
 * page, before Stop is pressed on it.
 */
export async function untilAborted<T>(ctx: Pick<FlowContext, 'signal'>, work: Promise<T>, onAbort: () => Promise<void>): Promise<T> {
  const { signal } = ctx;
  work.catch(() => {});
  if (signal.aborted) {
    await onAbort();
    throw signal.reason;
  }
  let stopping: Promise<void> | null = null;
  let abort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    abort = () => {
      stopping = onAbort().catch(() => {});
      void stopping.finally(() => reject(signal.reason));
    };
    signal.addEventListener('abort', abort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', abort);
    if (stopping) await stopping;
  }
}
