import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HoldLimits } from '../holds.js';
import type { CompletionsPort, Submission } from '../../contract/completions-port.js';
import type { JobView } from '../../core/jobs.js';
import type { Profile } from '../../contract/profile.js';
import { CompletionRequest, ErrorEnvelope, IdempotencyHeaders, JobParams, WaitQuery } from '../../contract/schemas.js';
import type { RouteAccess } from '../auth.js';
import { ATTACHMENT_LIMITS, attachmentMeta, type NewAttachment } from '../../core/attachments.js';
import { invalid } from '../../core/errors.js';
import { decodeNativeAttachments } from '../attachment-input.js';
import { MULTIPART_SUBMISSION, registerMultipartBodyParser } from '../multipart-body.js';

/** The route's description; what `wait: false` without `callback_url` does is the profile's. */
const submitDescription = (profile: Profile) => `Submits a prompt as a durable job.

- \`wait: true\` (the default) holds the request until the job is final, at most 10 minutes: 200 with the job,
  or the outcome's error (502, 499; 504 \`JOB_TIMEOUT\` when the hold ends first, and the job continues).
  A job that cannot start yet waits in the queue; a 504's message says why it waits.
- \`wait: false\` with a \`callback_url\` answers 202 at once; the job is POSTed to the URL when final.
${profile.cannotStartNowNote}

Files go in \`attachments\` (base64), or send the request as \`multipart/form-data\`: a \`request\` part holding this JSON without
\`attachments\`, then one part per file (\`curl -F 'request={"prompt":"…"}' -F 'file=@report.pdf'\`). The body limit is 70 MiB with files,
1 MiB without.

Send an \`Idempotency-Key\` to repeat the request safely: the same key returns the same job.`;

const write: RouteAccess = { scope: 'completions:write', budget: 'write' };
const read: RouteAccess = { scope: 'completions:read', budget: 'read' };

/** Aborts when the client goes away before its answer was sent. */
export function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.once('aborted', () => controller.abort());
  return controller.signal;
}

/**
 * Whether a request is its client's own automatic repeat: the official openai SDKs number
 * each try in `x-stainless-retry-count` (0 first). Undefined for clients that do not number
 * their tries: they never repeat by themselves, so their requests need no implicit key.
 */
function automaticRepeat(request: FastifyRequest): boolean | undefined {
  const count = request.headers['x-stainless-retry-count'];
  if (typeof count !== 'string') return undefined;
  return /^\d+$/.test(count) && Number(count) > 0;
}

/** A request's files, where it wrote each, and its body as an idempotency key compares it (the files by their SHA-256, not their data). */
export interface AttachedFiles {
  files: NewAttachment[];
  fields: string[];
  rawBody: Record<string, unknown>;
}

/** The submission of `body` that a request to `path` makes: its caller, its key's account, its Idempotency-Key, its files. */
export function submissionOf(request: FastifyRequest, path: string, body: CompletionRequest, attached?: AttachedFiles): Submission {
  const key = request.headers['idempotency-key'];
  const withFiles = attached && attached.files.length > 0 ? { attachments: attached.files, attachmentFields: attached.fields } : {};
  return {
    body,
    idempotencyKey: typeof key === 'string' ? key : undefined,
    path,
    rawBody: attached?.rawBody ?? (request.body as Record<string, unknown>),
    apiKeyId: request.keyId,
    automaticRepeat: automaticRepeat(request),
    accountId: request.accountId,
    ...withFiles,
  };
}

/**
 * A native submission and its files, from its JSON `attachments` or its multipart parts. The
 * request lets go of them (its body is the job's fields alone from here on), so that a request
 * held while its job runs keeps no file data: the submission has the files until the store does.
 */
function nativeSubmission(request: FastifyRequest<{ Body: CompletionRequest }>): Submission {
  const { attachments, ...body } = request.body;
  const multipart = request.multipartFiles;
  if (multipart !== null && attachments !== undefined) {
    throw invalid('attachments', 'A multipart request sends its files as parts: its "request" part has no attachments.');
  }
  const { files, fields } = multipart !== null ? { files: multipart, fields: multipart.map((_, i) => `attachments.${i}`) } : decodeNativeAttachments(attachments ?? []);
  request.body = body as CompletionRequest;
  request.multipartFiles = null;
  const rawBody = files.length > 0 ? { ...body, attachments: files.map(attachmentMeta) } : body;
  return submissionOf(request, '/v1/completions', body as CompletionRequest, { files, fields, rawBody });
}

/** Whether a native body carries files (a multipart one's are counted by its parser). */
function nativeCarriesFiles(body: unknown): boolean {
  const attachments = (body as { attachments?: unknown } | null)?.attachments;
  return Array.isArray(attachments) && attachments.length > 0;
}

export interface CompletionRoutesOptions {
  completions: CompletionsPort;
  profile: Profile;
  holds: HoldLimits;
}

/** /v1/completions: submit a job, read it (or wait on it), cancel it. */
export async function completionRoutes(app: FastifyInstance, { completions, profile, holds }: CompletionRoutesOptions): Promise<void> {
  const present = async (job: JobView) =>
    profile.jobObject(job, completions.agentName(job), await completions.queuePosition(job), completions.waitReason(job) ?? undefined);
  const { request: SubmissionBody, job: Job, accepted: Accepted } = profile.schemas;
  registerMultipartBodyParser(app);

  app.post<{ Body: CompletionRequest; Headers: { 'idempotency-key'?: string } }>(
    '/v1/completions',
    {
      config: { ...write, carriesFiles: nativeCarriesFiles, multipartBody: MULTIPART_SUBMISSION },
      bodyLimit: ATTACHMENT_LIMITS.bodyBytes,
      schema: {
        summary: 'Submit a job',
        description: submitDescription(profile),
        headers: IdempotencyHeaders,
        body: SubmissionBody,
        response: { 200: Job, 202: Accepted, default: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const submission = nativeSubmission(request);
      if (!submission.body.wait) {
        const { job, created } = await completions.submit(submission);
        return created ? reply.code(202).send(profile.acceptedBody(job, completions.agentName(job))) : present(job);
      }
      // Taken before the job is made: a refused hold submits nothing.
      const done = await holds.during(request, () => completions.submitAndWait(submission, clientGone(request, reply)));
      return present(done);
    },
  );

  app.get<{ Params: { id: string }; Querystring: { wait?: 'true' | 'false' } }>(
    '/v1/completions/:id',
    {
      config: read,
      schema: {
        summary: 'Read a job; wait=true holds until it is final',
        params: JobParams,
        querystring: WaitQuery,
        response: { 200: Job, default: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const job = await completions.get(request.params.id, request.accountId);
      if (request.query.wait !== 'true') return present(job);
      const held = await holds.during(request, () => completions.waitFor(job, completions.holdFor(job), clientGone(request, reply)));
      return present(held);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/completions/:id',
    {
      config: write,
      schema: { summary: 'Cancel a job', params: JobParams, response: { 200: Job, default: ErrorEnvelope } },
    },
    async (request) => present(await completions.cancel(request.params.id, request.accountId)),
  );
}
