import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { ErrorEnvelope } from './schemas.js';

export function envelope(code: ErrorCode | string, message: string, requestId: string, details?: Record<string, unknown>): ErrorEnvelope {
  return { error: { code, message, request_id: requestId, ...(details ? { details } : {}) } };
}

/**
 * Whether repeating the same request can give another answer: the contract's retry set,
 * with a JOB_TIMEOUT only while its job lives (a repeat waits for that same job, through
 * the Idempotency-Key or the implicit key of an SDK's own repeat). Final job outcomes (a
 * 502, a 499, an expired job) and refusals of the request are not. The official `openai`
 * SDKs obey `x-should-retry`; without it they repeat every 5xx, 409 and 429 twice, and a
 * refused prompt became three jobs.
 */
export function shouldRetry(error: ApiError): boolean {
  switch (error.code) {
    case 'RATE_LIMITED':
    case 'INTERNAL_ERROR':
    case 'NO_DEVICE_ONLINE':
    case 'NO_AGENT_AVAILABLE':
    case 'PROVIDER_RATE_LIMITED':
      return true;
    case 'JOB_TIMEOUT':
      return error.details?.status !== 'expired';
    default:
      return false;
  }
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  reply.header('x-should-retry', String(shouldRetry(error)));
  return reply.code(error.status).send(envelope(error.code, error.message, String(reply.request.id), error.details));
}

/**
 * Turns anything thrown while handling a request into the contract's envelope: ApiErrors as
 * they are, fastify's own client errors (bad JSON, wrong content type, too large) into
 * INVALID_REQUEST or PAYLOAD_TOO_LARGE, and everything else into a bare INTERNAL_ERROR.
 */
export function toApiError(error: FastifyError | ApiError | Error, body?: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError;
  if (fe.validation && fe.validation.length > 0) return fromValidation(fe.validation[0]!, fe.validationContext ?? 'body', body);
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', `The request body is over ${LIMITS.bodyBytes} bytes.`, { limit: LIMITS.bodyBytes });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('INVALID_REQUEST', 'Send the body as JSON with Content-Type: application/json.', { field: 'content-type' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('INVALID_REQUEST', 'The JSON body is empty.', { field: 'body' });
  }
  if (error instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('INVALID_REQUEST', 'The body is not valid JSON.', { field: 'body' });
  }
  if (fe.code === LOCK_NOT_AVAILABLE) {
    return new ApiError('INTERNAL_ERROR', `The database is busy: a lock another session holds was not released within ${LIMITS.databaseLockMs / 1000} s. Retry the request.`);
  }
  if (fe.statusCode === 413) return new ApiError('PAYLOAD_TOO_LARGE', 'The request is too large.');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError('INVALID_REQUEST', 'The request could not be read.', fe.code ? { reason: fe.code } : undefined);
  }
  return new ApiError('INTERNAL_ERROR', 'Something went wrong inside ChatBridge. Retry the request.');
}

/** PostgreSQL's code for a lock not granted within lock_timeout (LIMITS.databaseLockMs). */
const LOCK_NOT_AVAILABLE = '55P03';

const HEADER_NAMES: Record<string, string> = { 'idempotency-key': 'Idempotency-Key' };

function fromValidation(v: FastifySchemaValidationError, context: string, body: unknown): ApiError {
  const params = v.params as Record<string, unknown>;
  const path = v.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (v.keyword === 'required') path.push(String(params.missingProperty));
  if (v.keyword === 'additionalProperties') path.push(String(params.additionalProperty));
  let field = path.join('.');
  if (context === 'headers') field = HEADER_NAMES[field] ?? field;
  if (field === '') field = context;

  if (context === 'body' && field === 'prompt' && v.keyword === 'maxLength') {
    return new ApiError('PAYLOAD_TOO_LARGE', `prompt is over ${LIMITS.promptChars} characters.`, { field, limit: LIMITS.promptChars });
  }
  const message = describe(field, v, { ...params, given: context === 'body' ? valueAt(body, path) : undefined });
  // A required field missing next to a field of nearly its name: name the typo ("promt").
  const typo = v.keyword === 'required' && context === 'body' && v.instancePath === '' ? nearMiss(String(params.missingProperty), body) : undefined;
  if (typo !== undefined) return new ApiError('INVALID_REQUEST', `${message} The body has "${typo}": did you mean ${field}?`, { field, unknown_field: typo });
  return new ApiError('INVALID_REQUEST', message, { field });
}

/** The value at `path` in the request body, if there is one. */
function valueAt(body: unknown, path: string[]): unknown {
  let value = body;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A key of `body` one or two edits away from `name`. */
function nearMiss(name: string, body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return Object.keys(body).find((key) => key !== name && editDistance(key.toLowerCase(), name) <= 2);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The allowed value a mistaken one most likely meant: "claude" or "claude-3-opus" for
 * "service/claude" (a newcomer to the OpenAI route names a model, ChatBridge's models are
 * its providers), "chatgp" for "chatgpt".
 */
function closeChoice(given: string, allowed: unknown[]): string | undefined {
  const g = given.toLowerCase();
  const choices = allowed.filter((x): x is string => typeof x === 'string');
  const tail = (c: string) => c.slice(c.lastIndexOf('/') + 1).toLowerCase();
  return (
    choices.find((c) => tail(c) === g.slice(g.lastIndexOf('/') + 1)) ??
    choices.find((c) => tail(c).length > 3 && g.startsWith(tail(c))) ??
    choices.find((c) => editDistance(tail(c), g) <= 2)
  );
}

function describe(field: string, v: FastifySchemaValidationError, params: Record<string, unknown>): string {
  switch (v.keyword) {
    case 'required':
      return `${field} is required.`;
    case 'additionalProperties':
      return `${field} is not a field of this request.`;
    case 'enum': {
      // null in a nullable enum is "leave it to the service", not one of the choices.
      const allowed = params.allowedValues as unknown[];
      const choices = allowed.filter((x) => x !== null).map((x) => JSON.stringify(x)).join(', ');
      const hint = typeof params.given === 'string' ? closeChoice(params.given, allowed) : undefined;
      return `${field} must be one of: ${choices}${allowed.includes(null) ? ' (or null for any)' : ''}.${hint ? ` Did you mean ${JSON.stringify(hint)}?` : ''}`;
    }
    default:
      return `${field} ${v.message ?? 'is invalid'}.`;
  }
}

/** For the error handler: reply with the envelope, logging only real faults. */
export function handleError(error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiError = toApiError(error, request.body);
  if (apiError.status === ERROR_STATUS.INTERNAL_ERROR) {
    process.stderr.write(`[${String(request.id)}] ${request.method} ${request.url}: ${error.stack ?? error.message}\n`);
  }
  return sendError(reply, apiError);
}
