/**
 * What the job routes of /v1 (POST /v1/completions, GET and DELETE /v1/completions/{id},
 * POST /v1/chat/completions) ask of the application layer: main/service/completions.ts
 * answers. Declared in the contract, below both, so neither imports the other.
 */
import type { JobView, Viewer } from '../core/jobs.js';
import type { Provider } from '../core/providers.js';
import type { WaitReason } from '../core/wait-reason.js';
import type { CompletionRequest } from './schemas.js';
import type { Follower, StreamPosition } from './job-stream.js';
import type { NewAttachment } from '../core/attachments.js';

export interface Submission {
  /** The validated body, defaults applied. */
  body: CompletionRequest;
  idempotencyKey: string | undefined;
  /** The route path, part of what an idempotency key stands for. */
  path: string;
  /** The body as the caller sent it, for the idempotency comparison. */
  rawBody: Record<string, unknown>;
  /** The API key that sent it ('admin' for the dashboard's token), for usage history. */
  apiKeyId: string;
  /**
   * Whether the client says this is its own automatic repeat of an earlier request (the
   * openai SDKs' `x-stainless-retry-count` above 0); undefined when it does not number its
   * tries. Only used without an Idempotency-Key: see `repeatKey`.
   */
  automaticRepeat?: boolean;
  /** (H) The key's account, whose queue, idempotency keys and conversations these are; null in Profile F. */
  accountId: string | null;
  /**
   * The job's files, decoded and checked against the contract's limits, in the order the
   * request gave them (native `attachments`, multipart parts, or chat content parts); none: empty or absent.
   */
  attachments?: readonly NewAttachment[];
  /**
   * Where the request wrote each of `attachments` (`attachments.2.data`,
   * `messages.0.content.1.image_url.url`), for a refusal's `details.field`.
   */
  attachmentFields?: readonly string[];
}

export interface Submitted {
  job: JobView;
  /** False when an Idempotency-Key returned an existing job. */
  created: boolean;
}

export interface CompletionsPort {
  submit(s: Submission): Promise<Submitted>;
  /** A `wait: true` submission: the job once it succeeded, else the error the contract names for how it ended. */
  submitAndWait(s: Submission, signal?: AbortSignal): Promise<JobView>;
  /** The job, if it is the caller's (404 otherwise). */
  get(id: string, viewer: Viewer): Promise<JobView>;
  /** The job once it is final, or as it is when `holdMs` has passed or the caller went away. */
  waitFor(job: JobView, holdMs: number, signal?: AbortSignal): Promise<JobView>;
  holdFor(job: JobView): number;
  /** Whether the operator turned chat streaming on (settings streaming). */
  streamingOn(): boolean;
  /** Follows the job for an event stream from `from` (or its start) until it is final; returns what stops following. */
  follow(job: JobView, from: StreamPosition | null, follower: Follower): () => void;
  /** The error a `wait: true` caller would get for how the job ended (the job itself when it succeeded). */
  outcome(job: JobView): Promise<JobView>;
  cancel(id: string, viewer: Viewer): Promise<JobView>;
  agentName(job: JobView): string | null;
  queuePosition(job: JobView): Promise<number | undefined>;
  waitReason(job: JobView): WaitReason | null;
  /**
   * Refuses (400) a variant without its provider or one the provider's pack does not list, and
   * (403) one the operator does not allow the caller's account; `field` names where the caller wrote it.
   */
  checkVariant(provider: Provider | null, variant: string | null, accountId: string | null, field?: string): void;
}
