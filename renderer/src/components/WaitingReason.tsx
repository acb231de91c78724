import type { JobDetail } from '../api.js';
import { localTimes } from '../format.js';

/**
 * Why a queued job waits and until when, in the server's words: the one place the job page
 * reads a waiting reason. Today that is the detail's `waiting_because` (its times in UTC,
 * shown as the page's own); a reason the job object itself carries would be read here too.
 */
export function WaitingReason({ detail }: { detail: Pick<JobDetail, 'job' | 'waiting_because'> }) {
  const { queue_position: position } = detail.job;
  const why = detail.waiting_because;
  return (
    <>
      Waiting in the queue{position ? ` (position ${position})` : ''}
      {why ? `: ${localTimes(why)}.` : '.'}
    </>
  );
}
