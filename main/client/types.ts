/**
 * The messages of the API, as TypeScript types. Type-only imports of the service's own
 * schemas (one schema per message): nothing of the service is loaded at run time.
 */
import type {
  Accepted,
  AttachmentInput,
  ChatCompletion,
  ChatCompletionRequest,
  CompletionRequest,
  HostedStatus,
  Job,
  ModelList,
  Status,
} from '../contract/schemas.js';

export type { Accepted, AttachmentInput, ChatCompletion, ChatCompletionRequest, HostedStatus, Job, ModelList, Status };

/** A file of a job as the job object describes it: name, type, size and SHA-256, never its data. */
export type AttachmentMeta = NonNullable<Job['attachments']>[number];

/** POST /v1/completions: the prompt, and any of the optional fields (the service fills in defaults). */
export type SubmitRequest = Pick<CompletionRequest, 'prompt'> & Partial<Omit<CompletionRequest, 'prompt'>>;

/** One event of a chat completion with `stream: true` (OpenAI's chat.completion.chunk). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: 'assistant'; content?: string }; finish_reason: 'stop' | null }[];
  usage?: null;
}

export type Provider = NonNullable<CompletionRequest['provider']>;
export type JobStatus = Job['status'];

const FINAL: readonly string[] = ['succeeded', 'failed', 'cancelled', 'expired'];

export function isFinal(status: JobStatus): boolean {
  return FINAL.includes(status);
}

/**
 * A model as a person names it: `PROVIDER/VARIANT` (`chatgpt/thinking`: a variant, which
 * GET /v1/models lists as `service/chatgpt/thinking`) or `PROVIDER`. Null when it is neither.
 */
export function modelChoice(model: string): { provider: string; variant: string | null } | null {
  const match = /^([a-z]+)(?:\/([a-z0-9-]+))?$/.exec(model);
  return match ? { provider: match[1]!, variant: match[2] ?? null } : null;
}
