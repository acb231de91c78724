import type { Job } from '../client/index.js';
import { clockTime } from './local-time.js';

const FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

/**
 * Where a waiting job stands, on stderr: on a terminal one line redrawn under a spinner;
 * elsewhere (a log, a pipe) a plain line per change, so nothing is full of redraws.
 */
export class Progress {
  private readonly started = Date.now();
  private text = '';
  private frame = 0;
  private spinner: NodeJS.Timeout | undefined;

  constructor(private readonly out: NodeJS.WriteStream) {}

  /** Reports the job's state if it changed: queued at position N, running on an agent. */
  job(job: Job): void {
    const text = describe(job);
    if (text === this.text) return;
    this.text = text;
    if (!this.out.isTTY) return this.line(`${text} (${this.elapsed()})`);
    this.spinner ??= setInterval(() => this.redraw(), 100);
    this.redraw();
  }

  /** Ends the live line and writes `text` as a line of its own. */
  line(text: string): void {
    this.clear();
    this.out.write(`chatbridge: ${text}\n`);
  }

  elapsed(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(1)} s`;
  }

  /** Stops the spinner and wipes its line. */
  clear(): void {
    if (this.spinner === undefined) return;
    clearInterval(this.spinner);
    this.spinner = undefined;
    this.out.write('\r\x1b[2K');
  }

  private redraw(): void {
    this.frame = (this.frame + 1) % FRAMES.length;
    this.out.write(`\r\x1b[2K${FRAMES[this.frame]} ${this.text} · ${this.elapsed()}`);
  }
}

function describe(job: Job): string {
  if (job.status === 'queued') {
    const retry = job.attempts > 0 ? ` (attempt ${job.attempts} ended; retrying)` : '';
    const until = job.waiting_until ? `, until ${clockTime(job.waiting_until)}` : '';
    const why = job.waiting_because ? `: ${job.waiting_because}${until}` : '';
    return `${job.id} queued${job.queue_position ? ` at position ${job.queue_position}` : ''}${retry}${why}`;
  }
  return `${job.id} running on ${agentOf(job)}`;
}

/** "claude-1 (claude)", as a person named the agent. */
export function agentOf(job: Job): string {
  const name = job.agent_name ?? job.agent_id ?? 'an agent';
  return job.provider ? `${name} (${job.provider})` : name;
}
