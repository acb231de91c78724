import type { IncomingMessage } from 'node:http';
import { ChatBridgeError } from './errors.js';
import { messages } from './event-stream.js';
import { isFinal, type Job } from './types.js';

/** What following a job tells (GET /v1/completions/{id}/events). */
export type JobEvent =
  /** The job, at the start and at each change of status. */
  | { type: 'job'; id: string | null; job: Job }
  /** The next characters of the answer; joined, the texts are the final response. */
  | { type: 'delta'; id: string | null; text: string };

export interface FollowOptions {
  signal?: AbortSignal;
  /** How many times a cut stream is opened again (with Last-Event-ID) before polling instead. Default 3. */
  resumes?: number;
}

/** What following needs of the client: the stream opened (from an event id), and a wait on the job by polling. */
export interface FollowPorts {
  open(lastEventId: string | undefined, signal?: AbortSignal): Promise<IncomingMessage>;
  /** The error a non-200 answer is (read from its body). */
  refusal(res: IncomingMessage): Promise<ChatBridgeError>;
  wait(signal?: AbortSignal): Promise<Job>;
  /** The wait before open number `tries` + 1 after `tries` could not connect (the client's back-off). */
  pause(tries: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The job's events until it is final. A stream cut before the end is opened again from the
 * last event's id (`Last-Event-ID`: nothing is repeated or missed), at once after a cut, after
 * the client's back-off when no connection could be had; after `resumes` cuts, or
 * when the service has no event stream (an older one: 404 on the route, not on the job),
 * the job is long-polled to its end instead, and the rest of the answer after the characters
 * already told comes as one last delta, so the deltas still join to the response.
 */
export async function* followEvents(ports: FollowPorts, options: FollowOptions = {}): AsyncGenerator<JobEvent> {
  let lastId: string | undefined;
  let told = '';
  for (let cuts = 0; cuts <= (options.resumes ?? 3); cuts++) {
    let res: IncomingMessage;
    try {
      res = await ports.open(lastId, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // No connection: the service may be restarting. Waiting its back-off before the next
      // open resumes the stream once it is back, instead of spending the resumes at once.
      if (cuts < (options.resumes ?? 3)) await ports.pause(cuts, options.signal);
      continue;
    }
    if (res.statusCode !== 200) {
      const refusal = await ports.refusal(res);
      // No such job, no key, no scope: the answer. A service without the route, or one that
      // asks to wait: the polling finds out.
      const noRoute = refusal.code === 'NOT_FOUND' && refusal.message.startsWith('There is no GET');
      if (!noRoute && !refusal.retryable) throw refusal;
      break;
    }
    try {
      for await (const message of messages(res)) {
        lastId = message.id ?? lastId;
        const data = JSON.parse(message.data) as Job | { text: string };
        if (message.event === 'delta') {
          const { text } = data as { text: string };
          told += text;
          yield { type: 'delta', id: message.id ?? null, text };
        } else if (message.event === 'job') {
          const job = data as Job;
          yield { type: 'job', id: message.id ?? null, job };
          if (isFinal(job.status)) return;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
    }
  }
  const job = await ports.wait(options.signal);
  if (job.status === 'succeeded' && job.response !== null && job.response.startsWith(told) && job.response.length > told.length) {
    yield { type: 'delta', id: null, text: job.response.slice(told.length) };
  }
  yield { type: 'job', id: null, job };
}
