import type { DeltaRow } from '../../core/jobs.js';
import type { Db } from './db.js';
import { objectRows } from './object-rows.js';

/**
 * The pieces of running jobs' answers in the data dir (JobStore.appendDelta and its reads):
 * one immediate transaction per piece, which finds the attempt still the job's open one and
 * numbers the piece after the last. SqliteJobStore tells the events after the commit.
 *
 * A piece is committed without its own fsync (synchronous=NORMAL for that commit only): a
 * piece lost to a power cut costs nothing (the answer is whole in the job once it succeeds,
 * and a stream resumes from what the rows show), while an fsync per piece blocked the event
 * loop for every request, 2 ms a piece on a quiet disk and far more on a busy one. The WAL is
 * written in order, so the next FULL commit's fsync makes the pieces before it durable too.
 */
export class SqliteDeltas {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      open: db.prepare(`SELECT 1 FROM jobs WHERE id = ? AND status = 'dispatched' AND attempts = ?`).pluck(),
      next: db.prepare(`SELECT COALESCE(MAX(seq), 0) + 1 FROM job_deltas WHERE job_id = ?`).pluck(),
      insert: db.prepare(`INSERT INTO job_deltas (job_id, seq, attempt, text) VALUES (@job_id, @seq, @attempt, @text)`),
      since: objectRows<DeltaRow>(db.prepare(`SELECT job_id, seq, attempt, text FROM job_deltas WHERE job_id = ? AND seq > ? ORDER BY seq`)),
      drop: db.prepare(`DELETE FROM job_deltas WHERE job_id = ?`),
      dropFinished: db.prepare(
        `DELETE FROM job_deltas WHERE job_id IN (SELECT id FROM jobs WHERE status NOT IN ('queued', 'dispatched'))`,
      ),
    };
  }

  append(jobId: string, attempt: number, text: string): DeltaRow | null {
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.db
        .transaction((): DeltaRow | null => {
          if (!this.s.open.get(jobId, attempt)) return null;
          const row = { job_id: jobId, seq: this.s.next.get(jobId) as number, attempt, text };
          this.s.insert.run(row);
          return row;
        })
        .immediate();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  since(jobId: string, afterSeq: number): DeltaRow[] {
    return this.s.since.all(jobId, afterSeq);
  }

  drop(jobId: string): void {
    this.s.drop.run(jobId);
  }

  dropFinished(): number {
    return this.s.dropFinished.run().changes;
  }
}
