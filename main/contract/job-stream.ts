/**
 * GET /v1/completions/{id}/events and chat streaming (decisions.md, "Following a job"): what
 * a follower of a job is told, and the event ids that let a cut stream resume. Below the
 * HTTP layer and the application, which both speak it.
 */
import { JOB_STATUSES, type JobStatus, type JobView } from '../core/jobs.js';

export type FollowEvent =
  /** The job, at the start and at each change of status (or attempt). */
  | { kind: 'job'; id: string; job: JobView }
  /** The next characters of the answer. */
  | { kind: 'delta'; id: string; text: string };

/**
 * Where a stream stands, which each event's id says: how many characters of the answer it
 * has carried (UTF-16 code units), and the status and attempt count of the job it last
 * showed. A stream resumed from it sends what came after: the job if it changed since, the
 * characters after those, and the rest.
 */
export interface StreamPosition {
  chars: number;
  status: JobStatus;
  attempts: number;
}

export function eventId({ chars, status, attempts }: StreamPosition): string {
  return `${chars}-${status}-${attempts}`;
}

/** The position an event id names; null when it is not one this service wrote. */
export function parseEventId(id: string): StreamPosition | null {
  const match = /^(\d{1,9})-([a-z]+)-(\d{1,3})$/.exec(id);
  if (!match || !JOB_STATUSES.includes(match[2] as JobStatus)) return null;
  return { chars: Number(match[1]), status: match[2] as JobStatus, attempts: Number(match[3]) };
}

/** A follower's sink: `send` is awaited before the next event; `end` comes once, with the error that cut the stream if one did. */
export interface Follower {
  send(event: FollowEvent): Promise<void>;
  end(error?: Error): void;
}
