import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CompletionsPort, Submission } from '../../contract/completions-port.js';
import type { Provider } from '../../core/providers.js';
import { charLength, hasVisibleText } from '../../core/text.js';
import { invalid, ApiError } from '../../core/errors.js';
import {
  ChatCompletion,
  ChatCompletionRequest,
  completionDefaults,
  ErrorEnvelope,
  IdempotencyHeaders,
  type ChatMessage,
} from '../../contract/schemas.js';
import { LIMITS } from '../../core/limits.js';
import { clientGone, submissionOf } from './completions.js';
import type { HoldLimits } from '../holds.js';
import { answerChatStream } from './chat-stream.js';
import { EVENT_STREAM_RESPONSE } from './completion-events.js';
import { ATTACHMENT_LIMITS } from '../../core/attachments.js';
import { chatCarriesFiles, FILE_PARTS, filesOfMessages, messagesDescribed } from '../chat-files.js';

const LABELS = { system: 'System', developer: 'System', user: 'User', assistant: 'Assistant' } as const;

/**
 * Flattens chat messages into one prompt (decisions.md): a lone user message as it is,
 * otherwise "System: …", "User: …", "Assistant: …" blocks separated by blank lines. File
 * parts are not text: they are the job's attachments (chat-files.ts).
 */
export function flattenMessages(messages: ChatMessage[]): string {
  const texts = messages.map((m, i) => {
    const text = typeof m.content === 'string' ? m.content : textOfParts(m.content, i);
    if (charLength(text) > LIMITS.promptChars) {
      throw invalid(`messages.${i}.content`, `A message may hold at most ${LIMITS.promptChars} characters.`);
    }
    return text;
  });
  const prompt =
    messages.length === 1 && messages[0]!.role === 'user'
      ? texts[0]!
      : messages.map((m, i) => `${LABELS[m.role]}: ${texts[i]}`).join('\n\n');
  if (charLength(prompt) > LIMITS.promptChars) {
    throw new ApiError('PAYLOAD_TOO_LARGE', `The flattened messages are over ${LIMITS.promptChars} characters.`, {
      field: 'messages',
      limit: LIMITS.promptChars,
    });
  }
  if (!texts.some(hasVisibleText)) throw invalid('messages', 'The messages hold no visible text: only spaces, line breaks or invisible characters.');
  return prompt;
}

function textOfParts(parts: { type: string; text?: string }[], i: number): string {
  return parts
    .flatMap((p, j) => {
      if (FILE_PARTS.has(p.type)) return [];
      if (p.type !== 'text') {
        throw invalid(`messages.${i}.content.${j}.type`, `A content part is text, image_url or file, not "${p.type}".`);
      }
      if (typeof p.text !== 'string') throw invalid(`messages.${i}.content.${j}.text`, 'A text content part needs its text, a string.');
      return [p.text];
    })
    .join('\n');
}

/**
 * The submission a chat request makes: its messages flattened, its file parts decoded. The
 * request's messages then hold each file's description instead of its data, so that a request
 * held while its job runs keeps none (the submission has the files until the store does).
 */
function chatSubmission(request: FastifyRequest<{ Body: ChatCompletionRequest }>, provider: Provider | null, variant: string | null): Submission {
  const { messages } = request.body;
  // Files first: a refused file part is named even in a message without text.
  const { files, fields } = filesOfMessages(messages);
  const prompt = flattenMessages(messages);
  if (files.length > 0) request.body = { ...request.body, messages: messagesDescribed(messages, files) as ChatMessage[] };
  return submissionOf(
    request,
    '/v1/chat/completions',
    { ...completionDefaults(), prompt, provider, variant, wait: true },
    { files, fields, rawBody: request.body as Record<string, unknown> },
  );
}

/** The provider and variant a model names: `service/auto`, `service/<provider>` or `service/<provider>/<variant>` (the schema checked its form). */
export function modelChoice(model: string): { provider: Provider | null; variant: string | null } {
  const [, provider, variant] = model.split('/');
  return { provider: provider === 'auto' ? null : (provider as Provider), variant: variant ?? null };
}

/** OpenAI-compatible chat completions, on the same code path as POST /v1/completions; `stream: true` once streaming is on. */
export async function chatCompletionRoutes(
  app: FastifyInstance,
  {
    completions,
    holds,
    keepAliveMs,
  }: {
    completions: Pick<CompletionsPort, 'submitAndWait' | 'checkVariant' | 'streamingOn' | 'submit' | 'follow' | 'outcome' | 'cancel'>;
    holds: HoldLimits;
    keepAliveMs: number;
  },
): Promise<void> {
  app.post<{ Body: ChatCompletionRequest; Headers: { 'idempotency-key'?: string } }>(
    '/v1/chat/completions',
    {
      config: { scope: 'completions:write', budget: 'write', carriesFiles: chatCarriesFiles },
      bodyLimit: ATTACHMENT_LIMITS.bodyBytes,
      schema: {
        summary: 'OpenAI-compatible chat completion (answers whole; stream: true streams once the operator turned streaming on)',
        description:
          'With `stream: true` (400 unless `chatbridge settings streaming on`): `chat.completion.chunk` events, keep-alive comments while the job waits, ' +
          '`data: [DONE]` at the end; an `error` chunk in the envelope if the job fails; closing the stream before the answer cancels the job.\n\n' +
          'A message\'s `content` may be an array of content parts: `text`, `image_url` (`{ url: "data:<type>;base64,…" }`) and `file` ' +
          '(`{ filename, file_data: "data:<type>;base64,…" }`). Every file of every message is attached, in order; a remote URL is refused ' +
          '(nothing is fetched). The body limit is 70 MiB with files, 1 MiB without.',
        headers: IdempotencyHeaders,
        body: ChatCompletionRequest,
        response: { 200: { ...EVENT_STREAM_RESPONSE, content: { 'application/json': { schema: ChatCompletion }, ...EVENT_STREAM_RESPONSE.content } }, default: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const { model, stream } = request.body;
      if (stream === true && !completions.streamingOn()) {
        throw invalid('stream', 'stream: true is off on this service; answers are delivered whole (the operator turns it on: chatbridge settings streaming on).');
      }
      const { provider, variant } = modelChoice(model);
      completions.checkVariant(provider, variant, request.accountId, 'model');
      const submission = chatSubmission(request, provider, variant);
      if (stream === true) {
        const includeUsage = request.body.stream_options?.include_usage === true;
        return answerChatStream(request, reply, { completions, holds, keepAliveMs }, submission, model, includeUsage);
      }
      const done = await holds.during(request, () => completions.submitAndWait(submission, clientGone(request, reply)));
      return {
        id: done.id,
        object: 'chat.completion',
        created: Math.floor(done.created_at / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: done.response ?? '' }, finish_reason: 'stop' }],
        usage: null,
      } satisfies ChatCompletion;
    },
  );
}
