import type { Clock, TimerHandle } from '../../main/core/clock.js';

interface Timer {
  at: number;
  fn: () => void;
  handle?: NodeJS.Timeout;
}

/**
 * Real time that a test can move forward at once: timers run on their own as on the system
 * clock, and `skip` runs those that fall due on the way. For tests in real time (browsers,
 * processes) that would otherwise sit out a long production wait, such as a back-off.
 */
export class SkippingClock implements Clock {
  private offset = 0;
  private readonly timers = new Set<Timer>();

  now(): number {
    return Date.now() + this.offset;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.now() + Math.max(0, ms), fn };
    this.timers.add(timer);
    this.arm(timer);
    return {
      cancel: () => {
        clearTimeout(timer.handle);
        this.timers.delete(timer);
      },
    };
  }

  /** Moves time forward by `ms`: the timers due by then run at once, the others as much sooner. */
  skip(ms: number): void {
    this.offset += ms;
    for (const timer of this.timers) this.arm(timer);
  }

  private arm(timer: Timer): void {
    clearTimeout(timer.handle);
    timer.handle = setTimeout(() => {
      this.timers.delete(timer);
      timer.fn();
    }, Math.max(0, timer.at - this.now()));
    // As the system clock's: a pending timer keeps no process alive.
    timer.handle.unref();
  }
}
