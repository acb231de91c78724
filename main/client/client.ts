import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import { backoffMs, retryAfterMs } from './backoff.js';
import { realClock, sleep, type ClientClock } from './clock.js';
import { ChatBridgeError, NETWORK_ERROR } from './errors.js';
import { send, type HttpAnswer } from './http.js';
import { messages, openEventStream } from './event-stream.js';
import { followEvents, type FollowOptions, type JobEvent } from './follow.js';
import {
  isFinal,
  type Accepted,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type HostedStatus,
  type Job,
  type ModelList,
  type Status,
  type SubmitRequest,
} from './types.js';

export interface ClientOptions {
  /** Where ChatBridge listens, e.g. `http://127.0.0.1:8787` (a trailing `/v1` is accepted too). */
  baseUrl: string;
  /** An API key (`cb_…`) with the scopes the calls need. */
  apiKey: string;
  /** Retries of one request after a retryable failure. Default 6: about two minutes of back-off. */
  maxRetries?: number;
  /** A socket silent this long counts as a network failure. Default 660 000 ms, above the 600 s hold. */
  idleTimeoutMs?: number;
  /** Told before each retry: what failed and how long the client waits. */
  onRetry?: (error: ChatBridgeError, waitMs: number, retry: number) => void;
  /** Injected time (tests). */
  clock?: ClientClock;
  /** Injected randomness for the jitter, in [0, 1) (tests). */
  random?: () => number;
  /** Makes the Idempotency-Key of a submission the caller gave none for. */
  newIdempotencyKey?: () => string;
  /** The node:http Agent its requests connect through (keep-alive pools; the command line's proven connections). */
  agent?: Agent;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface SubmitOptions extends CallOptions {
  /** Sent on every try of this submission; one is made when not given. */
  idempotencyKey?: string;
}

export interface WaitOptions extends CallOptions {
  /** After this long, resolve with the job as it stands, final or not. Default: until it is final. */
  maxWaitMs?: number;
  /** Told the job whenever its status, queue position or agent changes while waiting. */
  onProgress?: (job: Job) => void;
  /** How often the job is read for `onProgress`. Default 2 000 ms (api.md: polls every few seconds at most). */
  progressEveryMs?: number;
}

interface Exchange {
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal | undefined;
  /** Codes that this call expects and handles itself instead of retrying. */
  expected?: readonly string[];
}

/** decisions.md: the 503s that mean "nothing can start this job right now". */
const CAPACITY_REFUSALS = ['NO_AGENT_AVAILABLE', 'NO_DEVICE_ONLINE', 'PROVIDER_RATE_LIMITED'];
/** A hold that comes back unfinished this soon did not really hold: back off before the next. */
const SHORT_HOLD_MS = 1_000;
/** How soon `enqueue` asks again for the id of the job its hold created. */
const PROBE_MS = 50;

/**
 * A client of ChatBridge's /v1 API that follows the contract's client rules (api.md
 * "Errors"): only retryable codes and network failures are retried, with exponential
 * back-off from 2 s capped at 60 s with jitter, or after `Retry-After` when the answer
 * has one; every try of a submission carries the same `Idempotency-Key`; and a hold that
 * ends with `JOB_TIMEOUT` while the job lives is followed by reading that job by id,
 * never by submitting again.
 */
export class ChatBridgeClient {
  private readonly base: string;
  private readonly clock: ClientClock;
  private readonly random: () => number;
  private readonly newKey: () => string;
  private readonly maxRetries: number;
  private readonly idleTimeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.newKey = options.newIdempotencyKey ?? randomUUID;
    this.maxRetries = options.maxRetries ?? 6;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 660_000;
  }

  /**
   * POST /v1/completions. With `wait: true` (the default) resolves with the succeeded job
   * or rejects with the outcome's error (`JOB_FAILED`, `PROMPT_REJECTED`, `JOB_CANCELLED`,
   * `JOB_TIMEOUT` for an expired job…), even when the hold ran out before the job ended.
   * With `wait: false`, resolves with the 202 body (or the original job on a repeat).
   */
  submit(request: SubmitRequest & { wait: false }, options?: SubmitOptions): Promise<Accepted | Job>;
  submit(request: SubmitRequest, options?: SubmitOptions): Promise<Job>;
  async submit(request: SubmitRequest, options: SubmitOptions = {}): Promise<Accepted | Job> {
    const idempotencyKey = options.idempotencyKey ?? this.newKey();
    const exchange = { body: request, idempotencyKey, signal: options.signal };
    try {
      return await this.call<Accepted | Job>('POST', '/v1/completions', exchange);
    } catch (error) {
      if (!isLiveTimeout(error)) throw error;
      // The job runs on: find its id and follow it. Profile F's 504 carries it in
      // details.job_id; where it does not, a `wait: false` repeat under the same key
      // answers with the original job (decisions.md "Idempotency") and creates nothing.
      const id =
        jobIdOf(error) ??
        (await this.call<Job>('POST', '/v1/completions', { ...exchange, body: { ...request, wait: false } })).id;
      return settled(await this.wait(id, { signal: options.signal }));
    }
  }

  /**
   * Queues a job and resolves with it at once, even when no agent could start it now.
   * (Profile F answers `wait: false` without a `callback_url` with 503 then; `wait: true`
   * queues the job instead, so the client holds one open under an Idempotency-Key just
   * until a `wait: false` repeat of that key names the job, then lets go: a hold its
   * client leaves does nothing to the job.) Follow it with `wait`, `get` or `cancel`.
   */
  async enqueue(request: SubmitRequest, options: SubmitOptions = {}): Promise<Job> {
    const idempotencyKey = options.idempotencyKey ?? this.newKey();
    const probe = { body: { ...request, wait: false }, idempotencyKey, signal: options.signal, expected: CAPACITY_REFUSALS };
    const found = await this.call<Accepted | Job>('POST', '/v1/completions', probe).catch(capacityRefusalAsNull);
    if (found) return this.get(found.id, options);

    const hold = new AbortController();
    const letGo = () => hold.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', letGo, { once: true });
    const held = this.call<Job>('POST', '/v1/completions', {
      body: { ...request, wait: true },
      idempotencyKey,
      signal: hold.signal,
    }).then(
      (job) => ({ job }),
      (error: unknown) => ({ error }),
    );
    try {
      for (let n = 0; ; n++) {
        const ended = await Promise.race([held, sleep(this.clock, PROBE_MS * 2 ** Math.min(n, 4), options.signal)]);
        if (ended && 'job' in ended) return ended.job;
        if (ended) {
          // The job ended (failed, cancelled) within moments: it exists all the same.
          const id = jobIdOf(ended.error);
          if (id) return this.get(id, options);
          throw ended.error;
        }
        const job = await this.call<Accepted | Job>('POST', '/v1/completions', probe).catch(capacityRefusalAsNull);
        if (job) return this.get(job.id, options);
      }
    } finally {
      options.signal?.removeEventListener('abort', letGo);
      hold.abort();
    }
  }

  /** GET /v1/completions/{id}: the job as it is now (a queued job has its `queue_position`). */
  get(id: string, options: CallOptions = {}): Promise<Job> {
    return this.call<Job>('GET', `/v1/completions/${encodeURIComponent(id)}`, { signal: options.signal });
  }

  /**
   * Long-polls the job (`?wait=true`, again after each hold) until it is final, and
   * resolves with it whatever its outcome; check `status`. `maxWaitMs` bounds the wait.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Job> {
    const { signal, maxWaitMs, onProgress } = options;
    const until = maxWaitMs === undefined ? Infinity : this.clock.now() + maxWaitMs;
    const stopWatching = onProgress ? this.watch(id, onProgress, options.progressEveryMs ?? 2_000) : () => {};
    try {
      for (let shortHolds = 0; ; ) {
        const left = until - this.clock.now();
        if (left <= 0) return await this.get(id, { signal });
        const bound = new AbortController();
        const timer = Number.isFinite(left) ? this.clock.setTimer(() => bound.abort(), left) : undefined;
        const forward = () => bound.abort(signal!.reason);
        signal?.addEventListener('abort', forward, { once: true });
        const sent = this.clock.now();
        let job: Job;
        try {
          job = await this.call<Job>('GET', `/v1/completions/${encodeURIComponent(id)}?wait=true`, { signal: bound.signal });
        } catch (error) {
          if (bound.signal.aborted && !signal?.aborted) return await this.get(id, { signal });
          throw error;
        } finally {
          timer?.cancel();
          signal?.removeEventListener('abort', forward);
        }
        if (isFinal(job.status)) return job;
        if (this.clock.now() - sent < SHORT_HOLD_MS) await sleep(this.clock, backoffMs(shortHolds++, this.random), signal);
      }
    } finally {
      stopWatching();
    }
  }

  /** DELETE /v1/completions/{id}: the job, cancelled (or as it was if it had already ended). */
  cancel(id: string, options: CallOptions = {}): Promise<Job> {
    return this.call<Job>('DELETE', `/v1/completions/${encodeURIComponent(id)}`, { signal: options.signal });
  }

  /**
   * POST /v1/chat/completions (OpenAI's shape). A hold that ends with the job still running
   * is followed by id like `submit`; the answer is rebuilt from the job in the same shape.
   */
  async chat(request: ChatCompletionRequest, options: SubmitOptions = {}): Promise<ChatCompletion> {
    const exchange = { body: request, idempotencyKey: options.idempotencyKey ?? this.newKey(), signal: options.signal };
    for (;;) {
      try {
        return await this.call<ChatCompletion>('POST', '/v1/chat/completions', exchange);
      } catch (error) {
        if (!isLiveTimeout(error)) throw error;
        const id = jobIdOf(error);
        // Without the id, a repeat under the same key holds for that same job again.
        if (id) return chatCompletionOf(settled(await this.wait(id, { signal: options.signal })), request.model);
      }
    }
  }

  /**
   * Follows the job (GET /v1/completions/{id}/events): the job at each status and the answer's
   * pieces as it renders, until the job is final; a cut stream resumes from Last-Event-ID, and
   * where the stream cannot be had the job is long-polled to its end (follow.ts).
   */
  follow(id: string, options: FollowOptions = {}): AsyncGenerator<JobEvent> {
    const url = new URL(`${this.base}/v1/completions/${encodeURIComponent(id)}/events`);
    return followEvents(
      {
        open: (lastEventId, signal) =>
          openEventStream(url, {
            headers: { authorization: `Bearer ${this.options.apiKey}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
            signal,
            idleTimeoutMs: STREAM_IDLE_MS,
            agent: this.options.agent,
          }),
        refusal: async (res) => this.refusalOf({ status: res.statusCode ?? 0, headers: res.headers, body: await bodyOf(res) }, url),
        wait: (signal) => this.wait(id, { signal }),
        pause: (tries, signal) => sleep(this.clock, backoffMs(tries, this.random), signal),
      },
      options,
    );
  }

  /**
   * POST /v1/chat/completions with `stream: true` (the service's operator must have turned
   * streaming on): OpenAI's chat.completion.chunk objects as they come. Leaving the loop
   * early, or a cut connection, cancels the job on the service; an error chunk is thrown as
   * a ChatBridgeError.
   */
  async *stream(request: ChatCompletionRequest, options: CallOptions = {}): AsyncGenerator<ChatCompletionChunk> {
    const url = new URL(`${this.base}/v1/chat/completions`);
    const ended = new AbortController();
    const forward = () => ended.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', forward, { once: true });
    try {
      const res = await openEventStream(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, stream: true }),
        signal: ended.signal,
        idleTimeoutMs: STREAM_IDLE_MS,
        agent: this.options.agent,
      }).catch((error: Error) => {
        throw ended.signal.aborted ? error : new ChatBridgeError(NETWORK_ERROR, 0, `ChatBridge at ${url.origin} did not answer: ${error.message}`);
      });
      if (res.statusCode !== 200) throw this.refusalOf({ status: res.statusCode ?? 0, headers: res.headers, body: await bodyOf(res) }, url);
      for await (const message of messages(res)) {
        if (message.data === '[DONE]') return;
        const chunk = JSON.parse(message.data) as ChatCompletionChunk | { error: unknown };
        if ('error' in chunk) throw this.refusalOf({ status: 502, headers: res.headers, body: message.data }, url);
        yield chunk;
      }
    } finally {
      options.signal?.removeEventListener('abort', forward);
      ended.abort();
    }
  }

  /**
   * GET /v1/status: agents, hourly use and caps per provider, the queue; a personal service
   * adds its devices and the global cap, a hosted one (HostedStatus) keeps them to the operator.
   */
  status(options: CallOptions = {}): Promise<Status | HostedStatus> {
    return this.call<Status | HostedStatus>('GET', '/v1/status', { signal: options.signal });
  }

  /** GET /v1/models: the `service/…` models enabled now (OpenAI's list shape). */
  models(options: CallOptions = {}): Promise<ModelList> {
    return this.call<ModelList>('GET', '/v1/models', { signal: options.signal });
  }

  /** One request, tried again while the contract says so. */
  private async call<T>(method: string, path: string, exchange: Exchange): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.exchange<T>(method, path, exchange);
      } catch (error) {
        if (!(error instanceof ChatBridgeError) || !error.retryable || retry >= this.maxRetries) throw error;
        // A JOB_TIMEOUT is never retried by submitting again (api.md "Errors" rule 2); the
        // callers follow the job instead. Expected codes are for the caller to handle.
        if (error.code === 'JOB_TIMEOUT' || exchange.expected?.includes(error.code)) throw error;
        const waitMs = error.retryAfterMs ?? backoffMs(retry, this.random);
        this.options.onRetry?.(error, waitMs, retry + 1);
        await sleep(this.clock, waitMs, exchange.signal);
      }
    }
  }

  private async exchange<T>(method: string, path: string, exchange: Exchange): Promise<T> {
    const url = new URL(this.base + path);
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' };
    if (exchange.body !== undefined) headers['content-type'] = 'application/json';
    if (exchange.idempotencyKey !== undefined) headers['idempotency-key'] = exchange.idempotencyKey;
    const answer = await send(url, {
      method,
      headers,
      body: exchange.body === undefined ? undefined : JSON.stringify(exchange.body),
      signal: exchange.signal,
      idleTimeoutMs: this.idleTimeoutMs,
      agent: this.options.agent,
    });
    const parsed = parseJson(answer.body);
    if (answer.status >= 200 && answer.status < 300 && parsed !== undefined) return parsed as T;
    throw this.refusalOf(answer, url, parsed);
  }

  /** The error an answer that is not a success is: the service's envelope, or a network failure when it is not ChatBridge's. */
  private refusalOf(answer: HttpAnswer, url: URL, parsed = parseJson(answer.body)): ChatBridgeError {
    const requestId = header(answer.headers['x-request-id']);
    const envelope = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown } })?.error;
    if (typeof envelope?.code !== 'string') {
      // Not ChatBridge's answer (a proxy's error page, a cut-off body): as good as none.
      const code = answer.status >= 500 || answer.status < 300 ? NETWORK_ERROR : 'UNEXPECTED_RESPONSE';
      return new ChatBridgeError(code, answer.status, `HTTP ${answer.status} from ${url.origin} without ChatBridge's answer.`, {}, requestId);
    }
    return new ChatBridgeError(
      envelope.code,
      answer.status,
      typeof envelope.message === 'string' ? envelope.message : envelope.code,
      isObject(envelope.details) ? envelope.details : {},
      typeof envelope.request_id === 'string' ? envelope.request_id : requestId,
      retryAfterMs(header(answer.headers['retry-after']), this.clock.now()),
    );
  }

  /** Reads the job every `everyMs` and reports changes, until the returned stop is called. */
  private watch(id: string, report: (job: Job) => void, everyMs: number): () => void {
    const stop = new AbortController();
    let last = '';
    const look = async () => {
      while (!stop.signal.aborted) {
        // One try each time: a missed look is made up by the next one.
        const job = await this.exchange<Job>('GET', `/v1/completions/${encodeURIComponent(id)}`, { signal: stop.signal }).catch(() => null);
        const seen = job && JSON.stringify([job.status, job.queue_position, job.agent_id, job.waiting_because, job.waiting_until]);
        if (job && seen !== last && !stop.signal.aborted && !isFinal(job.status)) {
          last = seen!;
          report(job);
        }
        await sleep(this.clock, everyMs, stop.signal).catch(() => {});
      }
    };
    void look();
    return () => stop.abort();
  }
}

/** A JOB_TIMEOUT whose job may still run: queued, dispatched, or not said. */
function isLiveTimeout(error: unknown): error is ChatBridgeError {
  return error instanceof ChatBridgeError && error.code === 'JOB_TIMEOUT' && error.details.status !== 'expired';
}

function jobIdOf(error: unknown): string | undefined {
  const id = error instanceof ChatBridgeError ? error.details.job_id : undefined;
  return typeof id === 'string' ? id : undefined;
}

function capacityRefusalAsNull(error: unknown): null {
  if (error instanceof ChatBridgeError && CAPACITY_REFUSALS.includes(error.code)) return null;
  throw error;
}

/**
 * The error a `wait: true` request would have answered for this final job, or null if it
 * succeeded: the job's own failure code (502), JOB_CANCELLED (499), JOB_TIMEOUT (504).
 */
export function jobError(job: Job): ChatBridgeError | null {
  const details = { job_id: job.id, status: job.status };
  switch (job.status) {
    case 'failed':
      return new ChatBridgeError(job.error?.code ?? 'JOB_FAILED', 502, job.error?.message || 'Every allowed attempt failed.', details);
    case 'cancelled':
      return new ChatBridgeError('JOB_CANCELLED', 499, 'The job was cancelled.', details);
    case 'expired':
      return new ChatBridgeError('JOB_TIMEOUT', 504, 'The job deadline passed; it will not run again.', details);
    default:
      return null;
  }
}

function settled(job: Job): Job {
  const error = jobError(job);
  if (error) throw error;
  return job;
}

function chatCompletionOf(job: Job, model: string): ChatCompletion {
  return {
    id: job.id,
    object: 'chat.completion',
    created: Math.floor(Date.parse(job.created_at) / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: job.response ?? '' }, finish_reason: 'stop' }],
    usage: null,
  };
}

/** Keep-alives come every 15 s: a stream silent four times that long is cut. */
const STREAM_IDLE_MS = 60_000;

async function bodyOf(res: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
