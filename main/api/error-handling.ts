import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { ErrorEnvelope } from '../contract/schemas.js';
import { fromValidation } from './validation-errors.js';

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
export function toApiError(error: FastifyError | ApiError | Error, request?: Pick<FastifyRequest, 'body' | 'routeOptions'>): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError;
  if (fe.validation && fe.validation.length > 0) return fromValidation(fe.validation[0]!, fe.validationContext ?? 'body', request?.body, request?.routeOptions.url);
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

/** For the error handler: reply with the envelope, logging only real faults. */
export function handleError(error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiError = toApiError(error, request);
  if (apiError.status === ERROR_STATUS.INTERNAL_ERROR) {
    process.stderr.write(`[${String(request.id)}] ${request.method} ${request.url}: ${error.stack ?? error.message}\n`);
  }
  return sendError(reply, apiError);
}
