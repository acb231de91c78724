import { afterEach, describe, expect, it, vi } from 'vitest';
import { setPaused } from '../../main/cli/account.js';
import { EVERY_ACCOUNT } from '../../main/core/jobs.js';
import { coalesced, feedTray, type Timers } from '../../main/electron/tray-feed.js';
import type { TraySnapshot } from '../../main/electron/tray-model.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

describe('coalesced', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs once for a burst, never synchronously, and at most once per interval', () => {
    vi.useFakeTimers();
    const run = vi.fn();
    const changed = coalesced(run, 250);
    for (let i = 0; i < 50; i++) changed();
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(run).toHaveBeenCalledTimes(1);

    // Changes right after a run wait for the interval's end, and make one run between them.
    vi.advanceTimersByTime(100);
    changed();
    changed();
    vi.advanceTimersByTime(149);
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);

    // Nothing changed: nothing runs. After a quiet spell, the next change runs on the next tick.
    vi.advanceTimersByTime(10_000);
    expect(run).toHaveBeenCalledTimes(2);
    changed();
    vi.advanceTimersByTime(0);
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('runs no more once stopped', () => {
    vi.useFakeTimers();
    const run = vi.fn();
    const changed = coalesced(run, 250);
    changed();
    changed.stop();
    changed();
    vi.advanceTimersByTime(1_000);
    expect(run).not.toHaveBeenCalled();
  });
});

describe('feedTray on a running service', () => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  /** What the tray would show at each refresh, as app.ts builds it. */
  function watchTray(service: TestService['service']) {
    const shown: TraySnapshot[] = [];
    // Real timers, counted: `waiting` is the refreshes asked for and neither run nor cancelled.
    const pending = new Set<NodeJS.Timeout>();
    let asked = 0;
    const timers: Timers = {
      now: () => Date.now(),
      setTimeout: (run, ms) => {
        asked++;
        const handle: NodeJS.Timeout = setTimeout(() => {
          pending.delete(handle);
          run();
        }, ms);
        pending.add(handle);
        return handle;
      },
      clearTimeout: (handle) => {
        pending.delete(handle as NodeJS.Timeout);
        clearTimeout(handle as NodeJS.Timeout);
      },
    };
    const refresh = async () => {
      const queueDepth = await service.store.queuedCount(EVERY_ACCOUNT);
      shown.push({ agents: service.pool.list().map((a) => service.pool.state(a.id)), queueDepth, paused: service.settings.get().paused });
    };
    const stop = feedTray(service, refresh, 250, timers);
    return { shown, stop, last: () => shown.at(-1), asked: () => asked, waiting: () => pending.size };
  }

  it('refreshes when a job is queued, and when the dashboard or `chatbridge pause` pauses', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    const tray = watchTray(t.service);

    // In process, as the dashboard's PATCH /admin/v1/settings does: no agent or job changes.
    await t.service.admin.state.updateSettings({ paused: true });
    await until(() => tray.last()?.paused === true);

    // Paused, the job stays queued: its acceptance is the only event.
    const r = await t.api('POST', '/v1/completions', { body: { prompt: 'hi', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    expect(r.status).toBe(202);
    await until(() => tray.last()?.queueDepth === 1);

    // Another process, as `chatbridge resume` is: the service sees the commit and reloads.
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      setPaused(false, ['--data-dir', t.dataDir]);
    } finally {
      write.mockRestore();
    }
    await until(() => tray.last()?.paused === false);
    // Resumed, the agent runs the job: the queue empties.
    await until(() => tray.last()?.queueDepth === 0);

    // Stopped, the tray asks for no refresh when the settings change, and none is left waiting.
    tray.stop();
    const asked = tray.asked();
    const heard = new Promise<void>((resolve) => {
      const off = t!.driver.settings.onChange(() => {
        off();
        resolve();
      });
    });
    await t.driver.settings.setPaused(true);
    await heard;
    expect(tray.asked()).toBe(asked);
    expect(tray.waiting()).toBe(0);
  });

  it('coalesces a burst of job changes into a few refreshes', async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
    await t.driver.settings.setPaused(true);
    const tray = watchTray(t.service);
    // Sent together, so that the burst is one however slow the machine.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => t!.api('POST', '/v1/completions', { body: { prompt: `p${i}`, wait: false, callback_url: 'https://127.0.0.1:9/hook' } })),
    );
    await until(() => tray.last()?.queueDepth === 20);
    // 20 acceptances within well under a second: a refresh per 250 ms, not per job.
    expect(tray.shown.length).toBeLessThan(10);
    tray.stop();
  });
});
