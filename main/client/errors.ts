/**
 * Every failure the client reports: the service's error envelope as a typed error, or a
 * network failure (`NETWORK_ERROR`, status 0) when no answer from ChatBridge came back.
 */
export class ChatBridgeError extends Error {
  override readonly name = 'ChatBridgeError';

  constructor(
    /** The contract's code (api.md "Codes"), or NETWORK_ERROR. Branch on this, never on `message`. */
    readonly code: string,
    /** The HTTP status; 0 when there was no answer. */
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** The service's `req_…` id of the request, for its log; null without an answer. */
    readonly requestId: string | null = null,
    /** The answer's `Retry-After`, in milliseconds, when it had one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** Whether the contract says to try again (api.md "Errors" rule 3, plus network failures). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}

export const NETWORK_ERROR = 'NETWORK_ERROR';

/** api.md "Errors" rule 3: the suggested retry set, and the failures with no answer at all. */
const RETRYABLE = new Set([
  'RATE_LIMITED',
  'NO_DEVICE_ONLINE',
  'NO_AGENT_AVAILABLE',
  'PROVIDER_RATE_LIMITED',
  'JOB_TIMEOUT',
  'INTERNAL_ERROR',
  NETWORK_ERROR,
]);
