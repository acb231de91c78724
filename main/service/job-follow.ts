import { OneAtATime } from '../core/one-at-a-time.js';
import type { JobView } from '../core/jobs.js';
import { eventId, type Follower, type StreamPosition } from '../contract/job-stream.js';
import type { JobStore } from '../queue/job-store.js';
import { isFinal } from '../queue/state-machine.js';
import { restOfAnswer, StreamedAnswer } from './streamed-answer.js';

const keyOf = (job: Pick<JobView, 'status' | 'attempts'>) => `${job.status}-${job.attempts}`;

/**
 * Follows one job for an event stream, on any instance: the store's events (its own moves,
 * and on PostgreSQL the other instances' once their rows are re-read) and its delta events
 * are hints to look again, and each look reads the job and the pieces stored since the last
 * one, so nothing is told that a row does not show, and a lost hint is made good by the next.
 * Looks run one at a time; the follower's `send` is awaited, so events go out in order.
 *
 * The stream: the job at the start and whenever its status or attempt count changes; the
 * answer's new characters (StreamedAnswer) while it runs; once it succeeded, the rest of the
 * answer after what was streamed, then the final job, and the end. A stream resumed from a
 * position skips the job event it already showed and the characters it already carried. A
 * stream started without a position on a job already final shows that job only.
 */
export function followJob(store: Pick<JobStore, 'view' | 'deltasSince' | 'events'>, job: JobView, from: StreamPosition | null, follower: Follower): () => void {
  const streamed = new StreamedAnswer();
  let chars = from?.chars ?? 0;
  /** The status and attempts of the job event the client last had. */
  let shown: Pick<JobView, 'status' | 'attempts'> | null = from;
  let ended = false;
  const stop = () => {
    ended = true;
    unsubscribe();
    unDelta();
  };
  const finish = (error?: Error) => {
    if (ended) return;
    stop();
    follower.end(error);
  };
  const position = ({ status, attempts } = shown!): string => eventId({ chars, status, attempts });
  const isShown = (now: JobView) => shown !== null && keyOf(now) === keyOf(shown);

  const look = new OneAtATime(async () => {
    if (ended) return;
    const now = await store.view(job.id);
    if (ended) return;
    if (!now) return finish();
    if (isFinal(now.status)) return await ending(now);
    if (!isShown(now)) {
      shown = now;
      await follower.send({ kind: 'job', id: position(), job: now });
    }
    if (now.status !== 'dispatched') return;
    for (const row of await store.deltasSince(job.id, streamed.seq)) streamed.add(row);
    if (!ended && streamed.text.length > chars) {
      const text = streamed.text.slice(chars);
      chars = streamed.text.length;
      await follower.send({ kind: 'delta', id: position(), text });
    }
  }, finish);

  /** The rest of the answer (a stream that saw the job run), the final job unless already shown, and the end. */
  const ending = async (final: JobView) => {
    if (shown !== null && !isShown(final)) {
      if (final.status === 'succeeded' && final.response !== null) {
        // What this stream carried is known while the pieces were read; a stream resumed
        // after they were dropped has carried `chars` of them, as the response begins.
        const carried = streamed.text.length >= chars ? streamed.text.slice(0, chars) : final.response.slice(0, chars);
        const rest = restOfAnswer(carried, final.response);
        if (rest) {
          chars += rest.length;
          await follower.send({ kind: 'delta', id: position(), text: rest });
        }
      }
    }
    if (!isShown(final)) await follower.send({ kind: 'job', id: position(final), job: final });
    finish();
  };

  const unsubscribe = store.events.subscribe(job.id, () => void look.run());
  const unDelta = store.events.onDelta(job.id, () => void look.run());
  void look.run();
  return stop;
}
