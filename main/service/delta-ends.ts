import type { LogBook } from '../logs/log-book.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { JobStore } from '../queue/job-store.js';
import { isFinal } from '../queue/state-machine.js';
import { restOfAnswer, StreamedAnswer } from './streamed-answer.js';

/**
 * Ends the stored pieces of each job this instance moves to a final status: once it
 * succeeded, checks that what was streamed is the start of its answer (the rest goes to the
 * streams from the response; when it is not, no stream can be right, which is counted and
 * logged with the job id), then drops the pieces, as the response now is the answer. The
 * instance that made the move does it, once; a stop between the move and the drop leaves
 * pieces that `dropFinishedDeltas` takes at the next start.
 */
export function endDeltasOfFinalJobs(store: JobStore, metrics: Pick<ServiceMetrics, 'deltaMismatch'>, log: LogBook): () => void {
  return store.onEvent(({ job, heard }) => {
    if (heard || !isFinal(job.status)) return;
    void (async () => {
      if (job.status === 'succeeded' && job.response !== null) {
        const streamed = new StreamedAnswer();
        for (const row of await store.deltasSince(job.id, 0)) streamed.add(row);
        if (restOfAnswer(streamed.text, job.response) === null) {
          metrics.deltaMismatch();
          log.warn('job', `Job ${job.id}: the pieces of its answer streamed while it ran (${streamed.text.length} characters) are not the start of its answer; its streams end with the job object, which carries the answer whole.`);
        }
      }
      await store.dropDeltas(job.id);
    })().catch((error: Error) => log.warn('service', `The streamed pieces of job ${job.id} could not be checked or dropped (the next start drops them): ${error.message}`));
  });
}
