import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { JobView } from '../../core/jobs.js';
import type { CompletionsPort, Submission } from '../../contract/completions-port.js';
import { envelope } from '../error-handling.js';
import type { HoldLimits } from '../holds.js';
import { openEventStream } from '../sse.js';

export interface ChatStreamOptions {
  completions: Pick<CompletionsPort, 'submit' | 'follow' | 'outcome' | 'cancel'>;
  holds: HoldLimits;
  keepAliveMs: number;
}

/**
 * A chat completion with `stream: true`, streaming on (decisions.md): OpenAI's
 * chat.completion.chunk events. Nothing is sent while the job waits in the queue but
 * keep-alives; the first chunk (`delta.role`) comes when an agent starts it, then the answer's
 * pieces as `delta.content`, a last chunk with `finish_reason: "stop"`, with
 * `include_usage` one more with `usage: null`, and `[DONE]`. Each chunk's `id` is the job id.
 * Errors before the stream begins (validation, the submission) are the usual JSON; a job that
 * does not succeed ends the stream with an `error` chunk in the contract's envelope. A caller
 * who hangs up before the end cancels the job, relayed to the page like any cancel.
 */
export async function answerChatStream(
  request: FastifyRequest,
  reply: FastifyReply,
  { completions, holds, keepAliveMs }: ChatStreamOptions,
  submission: Submission,
  model: string,
  includeUsage: boolean,
): Promise<void> {
  await holds.during(request, async () => {
    // Waits in the queue as a held request does (submitted as `wait: true`): no 503 for want of a free agent.
    const { job } = await completions.submit(submission);
    const created = Math.floor(job.created_at / 1000);
    const chunk = (delta: Record<string, string>, finish: 'stop' | null) =>
      JSON.stringify({ id: job.id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    await new Promise<void>((resolve) => {
      const stream = openEventStream(request, reply, keepAliveMs);
      let begun = false;
      let ended = false;
      /** The content sent: a job whose answer does not begin with it is not told `stop`. */
      let sent = '';
      const begin = () => {
        if (!begun) stream.send(chunk({ role: 'assistant', content: '' }, null));
        begun = true;
      };
      const final = async (done: JobView) => {
        if (done.status === 'succeeded' && done.response !== null && done.response !== sent) {
          // The pieces were not the answer's start (counted and logged where they were stored):
          // a client must not keep them as the answer, so the stream ends in an error naming where it is.
          stream.send(JSON.stringify(envelope('JOB_FAILED', `The streamed pieces were not the answer; the whole answer is at GET /v1/completions/${job.id}.`, String(request.id))));
          return;
        }
        if (done.status === 'succeeded') {
          begin();
          stream.send(chunk({}, 'stop'));
          if (includeUsage) stream.send(JSON.stringify({ id: job.id, object: 'chat.completion.chunk', created, model, choices: [], usage: null }));
          stream.send('[DONE]');
          return;
        }
        const error = await completions.outcome(done).then(
          () => new ApiError('INTERNAL_ERROR', 'The job ended without an answer.'),
          (e: unknown) => (e instanceof ApiError ? e : new ApiError('INTERNAL_ERROR', 'The job could not be read.')),
        );
        stream.send(JSON.stringify(envelope(error.code, error.message, String(request.id), error.details)));
      };
      const stop = completions.follow(job, null, {
        send: async (event) => {
          if (event.kind === 'delta') {
            begin();
            sent += event.text;
            stream.send(chunk({ content: event.text }, null));
          } else if (['succeeded', 'failed', 'cancelled', 'expired'].includes(event.job.status)) await final(event.job);
          else if (event.job.status === 'dispatched') begin();
        },
        end: (error) => {
          ended = true;
          // A stream cut by a fault (the database gone) says so, as an OpenAI client understands.
          if (error) stream.send(JSON.stringify(envelope('INTERNAL_ERROR', 'The answer could not be followed to its end; the job goes on: GET /v1/completions/' + job.id + '.', String(request.id))));
          stream.end();
          resolve();
        },
      });
      stream.onClientGone(() => {
        stop();
        resolve();
        // A final job is left as it is (a cancel of it changes nothing).
        if (!ended) void completions.cancel(job.id, request.accountId).catch(() => {});
      });
    });
  });
}
