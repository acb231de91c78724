/**
 * How `chatbridge ask` shows a waiting job on stderr: on a terminal one line redrawn under
 * a spinner and wiped before the next plain line; elsewhere one plain line per change.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Job } from '../../main/client/index.js';
import { Progress } from '../../main/cli/progress.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, out: { isTTY, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream };
}

const job = (status: Job['status'], extra: Partial<Job> = {}) =>
  ({ id: 'job_1', status, provider: 'claude', agent_id: 'agt_1', agent_name: 'claude-1', attempts: 0, ...extra }) as Job;

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

describe('ask progress', () => {
  it('writes a plain line per change, with the time so far, when stderr is not a terminal', () => {
    const { writes, out } = stream(false);
    const progress = new Progress(out);
    progress.job(job('queued', { queue_position: 2 }));
    vi.advanceTimersByTime(1_500);
    progress.job(job('queued', { queue_position: 2 })); // no change, no line
    progress.job(job('queued', { queue_position: 1 }));
    vi.advanceTimersByTime(700);
    progress.job(job('dispatched', { attempts: 1 }));
    expect(writes).toEqual([
      'chatbridge: job_1 queued at position 2 (0.0 s)\n',
      'chatbridge: job_1 queued at position 1 (1.5 s)\n',
      'chatbridge: job_1 running on claude-1 (claude) (2.2 s)\n',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('says why a queued job waits, and until when in local time', () => {
    const { writes, out } = stream(false);
    const progress = new Progress(out);
    const until = new Date(Date.now() + 90_000).toISOString();
    const local = new Date(until).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    progress.job(job('queued', { queue_position: 1, waiting_because: 'every Claude agent is pausing between jobs (a guard against bans)', waiting_until: until }));
    progress.job(job('queued', { queue_position: 1, waiting_because: 'no ChatGPT account is paired (add one)' }));
    expect(writes).toEqual([
      `chatbridge: job_1 queued at position 1: every Claude agent is pausing between jobs (a guard against bans), until ${local} (0.0 s)\n`,
      'chatbridge: job_1 queued at position 1: no ChatGPT account is paired (add one) (0.0 s)\n',
    ]);
  });

  it('on a terminal redraws one line under a spinner, and wipes it before a plain line', () => {
    const { writes, out } = stream(true);
    const progress = new Progress(out);
    progress.job(job('queued', { queue_position: 1 }));
    expect(writes.at(-1)).toBe('\r\x1b[2K⠙ job_1 queued at position 1 · 0.0 s');
    vi.advanceTimersByTime(300);
    expect(writes.at(-1)).toBe('\r\x1b[2K⠼ job_1 queued at position 1 · 0.3 s');
    progress.job(job('dispatched'));
    expect(writes.at(-1)).toMatch(/^\r\x1b\[2K. job_1 running on claude-1 \(claude\) · 0\.3 s$/);
    progress.line('answered by claude-1 (claude) in 0.3 s');
    expect(writes.slice(-2)).toEqual(['\r\x1b[2K', 'chatbridge: answered by claude-1 (claude) in 0.3 s\n']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
