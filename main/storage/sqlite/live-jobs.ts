import type { JobRow, JobView } from '../../core/jobs.js';
import { isFinal } from '../../queue/state-machine.js';

/**
 * The jobs a store submitted or moved that are not final yet, as their callers are shown
 * them, kept in memory: in the serving process, a poll of a queued or running job (what
 * scripts do while they wait) then reads no database. Reading a row by id costs little, but
 * each read of a WAL database is a transaction with its file-lock system calls: in
 * bench/submit-and-get that was a third of a GET's CPU.
 *
 * Only what this store itself wrote is kept, so it is what the database holds as long as no
 * one else moves those jobs, and no one does: a second `serve` on the same data dir is
 * refused, and the commands that write jobs (`jobs delete`, `jobs purge`, retention) touch
 * only final ones, which are not kept and are read from the database each time. A command
 * beside the server keeps only what it wrote itself (nothing live), so it reads the server's
 * jobs as they stand. A rolled-back transaction empties the whole: its moves may already be
 * here. Jobs live across a restart are read from the database until they next move.
 */
export class LiveJobs {
  private readonly views = new Map<string, JobView>();

  get(id: string): JobView | undefined {
    return this.views.get(id);
  }

  /** The job as it now stands: kept while it is live, dropped once it is final. */
  hold(job: JobRow): void {
    if (isFinal(job.status)) this.views.delete(job.id);
    else this.views.set(job.id, withoutPrompt(job));
  }

  clear(): void {
    this.views.clear();
  }
}

/** A new object without `prompt`: the kept views must not hold prompts of up to 100 000 characters. */
function withoutPrompt(job: JobRow): JobView {
  const { prompt: _prompt, ...view } = job;
  return view;
}
