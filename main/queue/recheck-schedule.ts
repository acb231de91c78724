import type { Clock, TimerHandle } from '../core/clock.js';

/**
 * How long an agent that is set aside waits before it looks at its page again on its own:
 * soon after a first trouble (most are gone in seconds: a verification that clears, a page
 * that loaded badly), less and less often while it stays.
 */
export const RECHECK_DELAYS_MS = [15_000, 60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000];

/**
 * How long an agent that looked logged out waits before it looks again, a page load with
 * nothing sent: a minute first (a wall shown by mistake, a session restored meanwhile), then
 * less and less often, at most once an hour, as a person's open tab would reload. A login
 * page loaded again and again is what providers lock accounts for; this is not again and again.
 */
export const LOGGED_OUT_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 60 * 60_000];

/**
 * An agent that a look found healed and that falls ill again within this long goes on
 * where its back-off stood, instead of at 15 s: a page that passes a look but fails every
 * job would otherwise cost a job every few seconds.
 */
const FLAP_WINDOW_MS = RECHECK_DELAYS_MS.at(-1)!;

/** What an agent needs from the schedule, as the pool sees it. */
export type Condition =
  /** Ready (idle): whatever was wrong is gone. */
  | { kind: 'well' }
  /** Busy, paused, waiting for a person (a locked account), or with no page to look at: no look of ours. */
  | { kind: 'leave' }
  /** Set aside (a changed site, a verification, a page that would not load): look on the back-off. */
  | { kind: 'unwell' }
  /** Logged out: look on the slower back-off of LOGGED_OUT_DELAYS_MS, until a person logs in or the session is back. */
  | { kind: 'loggedOut' }
  /** Resting after a usage limit: the first look at `at` (the reset time the banner gave, plus a little). */
  | { kind: 'resting'; at: number };

interface Planned {
  at: number;
  timer: TimerHandle;
  /** The reset time a resting plan was made for: a new limit brings a new one. */
  restAt: number | null;
}

/**
 * Plans each agent's next look at its page, on the injected clock: one back-off for a page
 * set aside or resting, a slower one for a logged-out page. `look` says whether the page is
 * ready for a job; the schedule asks `conditionOf` again after each look and plans the next
 * one from that.
 */
export class RecheckSchedule {
  private readonly planned = new Map<string, Planned>();
  /** Looks in a row that found the agent still unwell, and when it last healed. */
  private readonly history = new Map<string, { misses: number; healedAt: number | null }>();
  private readonly looking = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly look: (id: string) => Promise<boolean>,
    private readonly conditionOf: (id: string) => Condition,
  ) {}

  /** The agent's condition may have changed: plans, keeps or drops its next look. */
  update(id: string): void {
    if (this.looking.has(id)) return; // the look under way plans the next one
    const condition = this.conditionOf(id);
    const planned = this.planned.get(id);
    switch (condition.kind) {
      case 'well':
        this.drop(id);
        this.healed(id);
        return;
      case 'leave':
        this.drop(id);
        return;
      case 'unwell':
      case 'loggedOut':
        if (!planned) this.plan(id, this.clock.now() + this.delay(id, condition.kind === 'unwell' ? RECHECK_DELAYS_MS : LOGGED_OUT_DELAYS_MS), null);
        return;
      case 'resting':
        if (planned?.restAt === condition.at) return;
        // A new limit: its reset time first, the back-off only if the page still shows it then.
        this.drop(id);
        this.history.set(id, { misses: 0, healedAt: null });
        this.plan(id, condition.at, condition.at);
        return;
    }
  }

  /** When the agent looks at its page next, on its own; null when it does not. */
  nextAt(id: string): number | null {
    return this.planned.get(id)?.at ?? null;
  }

  forget(id: string): void {
    this.drop(id);
    this.history.delete(id);
  }

  stop(): void {
    for (const id of [...this.planned.keys()]) this.drop(id);
  }

  private delay(id: string, delays: readonly number[]): number {
    const history = this.history.get(id);
    const flapping = history?.healedAt != null && this.clock.now() - history.healedAt < FLAP_WINDOW_MS;
    // Falling ill again soon after healing counts as one more look that found trouble.
    const misses = !history ? 0 : history.healedAt === null ? history.misses : flapping ? history.misses + 1 : 0;
    this.history.set(id, { misses, healedAt: null });
    return delays[Math.min(misses, delays.length - 1)]!;
  }

  /** Well again: by a look of ours (its history stays, for a relapse), or by itself (a start, a login): a fresh start. */
  private healed(id: string): void {
    if (this.history.get(id)?.healedAt === null) this.history.delete(id);
  }

  private plan(id: string, at: number, restAt: number | null): void {
    const timer = this.clock.setTimer(() => void this.lookNow(id), at - this.clock.now());
    this.planned.set(id, { at, timer, restAt });
  }

  private drop(id: string): void {
    this.planned.get(id)?.timer.cancel();
    this.planned.delete(id);
  }

  private async lookNow(id: string): Promise<void> {
    const planned = this.planned.get(id);
    this.planned.delete(id);
    const before = this.conditionOf(id).kind;
    // Taken up meanwhile (a job, a person's own check, paused): its next change plans again.
    if (before === 'well' || before === 'leave') return this.update(id);
    this.looking.add(id);
    let well = false;
    try {
      well = await this.look(id);
    } catch {
      // A look that could not run (no browser yet, a login under way) counts as one that found trouble.
    } finally {
      this.looking.delete(id);
    }
    const history = this.history.get(id) ?? { misses: 0, healedAt: null };
    // The look at a limit's reset time is not one of the back-off's: the back-off starts after it.
    const atResetTime = planned?.restAt === planned?.at;
    if (!well && !atResetTime) history.misses++;
    if (well) history.healedAt = this.clock.now();
    this.history.set(id, history);
    // Still resting after its reset time: the back-off takes over from here.
    const condition = this.conditionOf(id);
    if (!well && condition.kind === 'resting') this.plan(id, this.clock.now() + this.delay(id, RECHECK_DELAYS_MS), condition.at);
    else this.update(id);
  }
}
