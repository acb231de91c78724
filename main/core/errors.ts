/**
 * The error codes of the contract (api.md "Codes", decisions.md for the specific 502s) and
 * the HTTP status each one travels with. Everything that fails on purpose throws ApiError;
 * anything else reaching the error handler becomes INTERNAL_ERROR with no detail.
 *
 * test/unit/error-catalog.test.ts holds this table to api.md's and decisions.md's text. It
 * lives in the kernel, not main/contract/, because ApiError travels with it and rooms below
 * the contract throw one (diagnostics/) or name its codes (queue/).
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  JOB_CANCELLED: 499,
  INTERNAL_ERROR: 500,
  JOB_FAILED: 502,
  PROMPT_REJECTED: 502,
  PROVIDER_ERROR: 502,
  LOGIN_REQUIRED: 502,
  PROVIDER_UI_CHANGED: 502,
  ANSWER_NOT_TEXT: 502,
  VARIANT_UNAVAILABLE: 502,
  // The page refused a job's file or did not show it attached (decisions.md, "Attachments").
  ATTACHMENT_FAILED: 502,
  // A long-thinking variant's answer did not come within its attempt, which is never sent again (decisions.md, "Models and modes").
  TIMEOUT: 502,
  NO_DEVICE_ONLINE: 503,
  NO_AGENT_AVAILABLE: 503,
  PROVIDER_RATE_LIMITED: 503,
  JOB_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The codes a failed job can end with (a waiting caller receives it as a 502). */
export type JobFailureCode =
  | 'JOB_FAILED'
  | 'PROMPT_REJECTED'
  | 'PROVIDER_ERROR'
  | 'LOGIN_REQUIRED'
  | 'PROVIDER_UI_CHANGED'
  | 'ANSWER_NOT_TEXT'
  | 'VARIANT_UNAVAILABLE'
  | 'ATTACHMENT_FAILED'
  | 'TIMEOUT';

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, such as Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export function invalid(field: string, message: string): ApiError {
  return new ApiError('INVALID_REQUEST', message, { field });
}
