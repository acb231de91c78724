import { statSync } from 'node:fs';
import { ChatBridgeError, isFinal, modelChoice, readAttachment, type AttachmentInput, type ChatBridgeClient, type Job, type SubmitRequest } from '../client/index.js';
import { ATTACHMENT_LIMITS } from '../core/attachments.js';
import { hasVisibleText } from '../core/text.js';
import { parse, UsageError } from './args.js';
import { askClient, KEY_HINT } from './connection.js';
import { agentOf, Progress } from './progress.js';
import { CLI } from '../core/cli-name.js';

/** `chatbridge ask`'s exit codes (docs/cli.md). */
export const ASK_EXIT = {
  answered: 0,
  /** The job failed (refused, provider errors, every attempt failed), or the service could not be reached. */
  failed: 1,
  /** Bad arguments, no key, ChatBridge not running, or a request the service refused as asked. */
  usage: 2,
  /** The job was cancelled elsewhere (the dashboard, another client). */
  cancelled: 3,
  /** The job's deadline passed before it could answer. */
  timedOut: 4,
  /** Ctrl-C: the job was cancelled on the way out, as any program stopped with Ctrl-C exits. */
  interrupted: 130,
} as const;

/** Codes for a request the service refused as it was asked: the asker's to fix. */
const REFUSED_AS_ASKED = ['INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYLOAD_TOO_LARGE'];

/**
 * `chatbridge ask "PROMPT"`: one question to the running service, the answer's Markdown on
 * stdout as the page renders it, where the job stands on stderr while it waits, Ctrl-C
 * cancels it. Three requests for a whole answer: the submission, the job read back, and its
 * event stream (more only where the stream is cut: it resumes, or polls).
 */
export async function ask(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      'data-dir': { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      continue: { type: 'string' },
      json: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      file: { type: 'string', multiple: true },
    },
    1,
  );
  const prompt = await promptOf(positionals[0]);
  const attachments = await filesOf(values.file ?? []);
  const { client, flag } = await askClient(values['data-dir'], process.env);
  const { provider, variant } = choiceOf(values.provider, values.model);
  const request: SubmitRequest = {
    prompt,
    ...(provider ? { provider: provider as SubmitRequest['provider'] } : {}),
    ...(variant ? { variant } : {}),
    ...(values.continue ? { mode: 'continue', conversation_ref: values.continue } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
  const progress = new Progress(process.stderr);
  const interrupted = new AbortController();
  const onSigint = () => (interrupted.signal.aborted ? process.exit(ASK_EXIT.interrupted) : interrupted.abort());
  process.on('SIGINT', onSigint);
  try {
    // Not abortable: once Ctrl-C is pressed the job's id is what is needed to cancel it.
    const queued = await client.enqueue(request);
    if (values['no-wait'] && !interrupted.signal.aborted) {
      process.stdout.write(values.json ? `${JSON.stringify(queued, null, 2)}\n` : `${queued.id}\n`);
      progress.line(`${queued.id} is ${queued.status}; read it with GET /v1/completions/${queued.id}`);
      return ASK_EXIT.answered;
    }
    progress.job(queued);
    const followed = await followAnswer(client, queued.id, interrupted.signal, progress, !values.json).catch((error: unknown) => {
      if (interrupted.signal.aborted) return null;
      throw error;
    });
    if (!followed) return await cancelOnInterrupt(client, queued.id, progress, values.json, flag);
    return report(followed.job, progress, values.json, flag, followed.printed);
  } catch (error) {
    if (!(error instanceof ChatBridgeError)) throw error;
    return failure(error, progress);
  } finally {
    process.off('SIGINT', onSigint);
    progress.clear();
  }
}

/**
 * Follows the job to its end: where it stands on stderr until the answer begins, then the
 * answer on stdout as it renders (`printing`; --json prints the job alone at the end).
 * Returns the final job and what of its answer was printed.
 */
async function followAnswer(client: ChatBridgeClient, id: string, signal: AbortSignal, progress: Progress, printing: boolean): Promise<{ job: Job; printed: string }> {
  let printed = '';
  for await (const event of client.follow(id, { signal })) {
    if (event.type === 'delta') {
      if (printing && printed === '') progress.clear();
      if (printing) process.stdout.write(event.text);
      printed += event.text;
    } else if (isFinal(event.job.status)) return { job: event.job, printed: printing ? printed : '' };
    else if (printed === '') progress.job(event.job);
  }
  // The stream and the polling both end with the final job: never here.
  throw new ChatBridgeError('UNEXPECTED_RESPONSE', 0, `The events of ${id} ended before the job did.`);
}

/** `--model PROVIDER/VARIANT` (or `--model PROVIDER`), which `--provider` may repeat but not contradict. */
function choiceOf(provider: string | undefined, model: string | undefined): { provider?: string; variant?: string } {
  if (model === undefined) return { provider };
  const choice = modelChoice(model);
  if (!choice) throw new UsageError(`--model takes PROVIDER/VARIANT, such as chatgpt/thinking (not "${model}").`);
  if (provider !== undefined && provider !== choice.provider) throw new UsageError(`--model ${model} is a ${choice.provider} model, but --provider says ${provider}.`);
  return { provider: choice.provider, ...(choice.variant ? { variant: choice.variant } : {}) };
}

/**
 * `--file PATH`, each read whole (its type guessed from its name's ending); a file that
 * cannot be, or is over the contract's limits, is refused in one line before anything is sent.
 */
async function filesOf(paths: string[]): Promise<AttachmentInput[]> {
  if (paths.length > ATTACHMENT_LIMITS.maxFiles) throw new UsageError(`${paths.length} --file: a job takes at most ${ATTACHMENT_LIMITS.maxFiles} files.`);
  const files: AttachmentInput[] = [];
  for (const path of paths) {
    let bytes: number;
    try {
      const found = statSync(path);
      if (!found.isFile()) throw new UsageError(`--file ${path}: not a file.`);
      bytes = found.size;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`--file ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'cannot be read'}.`);
    }
    if (bytes > ATTACHMENT_LIMITS.maxFileBytes) throw new UsageError(`--file ${path}: ${bytes} bytes, over the ${ATTACHMENT_LIMITS.maxFileBytes / 1024 / 1024} MiB a file may have.`);
    if (bytes === 0) throw new UsageError(`--file ${path}: the file is empty.`);
    files.push(await readAttachment(path).catch(() => Promise.reject(new UsageError(`--file ${path}: cannot be read.`))));
  }
  return files;
}

async function promptOf(arg: string | undefined): Promise<string> {
  if (arg === undefined) throw new UsageError(`Give the prompt: ${CLI} ask "PROMPT" (or - to read it from stdin).`);
  let prompt = arg;
  if (arg === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    prompt = Buffer.concat(chunks).toString('utf8');
  }
  if (!hasVisibleText(prompt)) throw new UsageError('The prompt has no visible text: it is empty, or only spaces, line breaks or invisible characters.');
  return prompt;
}

/**
 * A final job: the rest of the answer on stdout (after what was `printed` as it rendered), or
 * why there is none on stderr; the exit code. `flag` finds the server again.
 */
function report(job: Job, progress: Progress, json: boolean | undefined, flag: string, printed = ''): number {
  if (json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  switch (job.status) {
    case 'succeeded': {
      // Printed pieces that are not the answer's start (an agent's mistake): the answer whole, on a line of its own.
      const rest = job.response!.startsWith(printed) ? job.response!.slice(printed.length) : `\n${job.response}`;
      if (!json) process.stdout.write(job.response!.endsWith('\n') ? rest : `${rest}\n`);
      progress.line(`answered by ${agentOf(job)}${job.model_used ? ` (model ${job.model_used})` : ''} in ${progress.elapsed()}`);
      if (job.conversation_ref) {
        progress.line(`conversation_ref ${job.conversation_ref} (continue it: ${CLI} ask ${flag ? `${flag} ` : ''}--continue ${job.conversation_ref} "…")`);
      }
      return ASK_EXIT.answered;
    }
    case 'cancelled':
      progress.line(`${job.id} was cancelled.`);
      return ASK_EXIT.cancelled;
    case 'expired':
      progress.line(`${job.id} timed out: its deadline passed before it could answer.`);
      return ASK_EXIT.timedOut;
    default:
      progress.line(`${job.id} failed: ${job.error?.code ?? 'JOB_FAILED'}: ${job.error?.message ?? 'every allowed attempt failed.'}`);
      return ASK_EXIT.failed;
  }
}

async function cancelOnInterrupt(client: ChatBridgeClient, id: string, progress: Progress, json: boolean | undefined, flag: string): Promise<number> {
  progress.clear();
  const job = await client.cancel(id);
  if (job.status !== 'cancelled') return report(job, progress, json, flag); // it ended first
  if (json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  progress.line(`Ctrl-C: cancelled ${id}.`);
  return ASK_EXIT.interrupted;
}

function failure(error: ChatBridgeError, progress: Progress): number {
  if (error.code === 'UNAUTHORIZED') {
    progress.line(`${error.message} To use another: ${KEY_HINT}.`);
    return ASK_EXIT.usage;
  }
  progress.line(`${error.code}: ${error.message}`);
  if (error.code === 'JOB_CANCELLED') return ASK_EXIT.cancelled;
  if (error.code === 'JOB_TIMEOUT') return ASK_EXIT.timedOut;
  return REFUSED_AS_ASKED.includes(error.code) ? ASK_EXIT.usage : ASK_EXIT.failed;
}
