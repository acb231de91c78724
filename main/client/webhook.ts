import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Job } from './types.js';

export interface VerifyOptions {
  /** How far the delivery's timestamp may be from now, in seconds. Default 300 (api.md). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (tests). */
  now?: number;
}

export type WebhookFailure = 'missing_headers' | 'stale_timestamp' | 'bad_signature' | 'bad_body';

/** A delivery that must not be trusted; answer it with 401 and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Node's `req.headers`, a fetch `Headers`, or any object of header names (any case). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a webhook delivery (docs/webhooks.md; api.md "Webhook signature") and returns
 * the job it carries. `rawBody` is the body exactly as received, before any JSON parsing:
 * the signature is HMAC-SHA256 with your signing secret over `<timestamp>.<raw body>`,
 * compared in constant time, and the timestamp must be within `toleranceSeconds` of now.
 * Throws WebhookVerificationError (with a `reason`) instead of returning an unverified
 * job, so a forgery cannot be acted on by forgetting to check a result.
 */
export function verifyWebhook(rawBody: Uint8Array | string, headers: HeaderSource, secret: string, options: VerifyOptions = {}): Job {
  const timestamp = headerOf(headers, 'x-service-timestamp');
  const signature = headerOf(headers, 'x-service-signature');
  if (timestamp === undefined || signature === undefined) {
    throw new WebhookVerificationError('missing_headers', 'X-Service-Timestamp and X-Service-Signature are required.');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const now = (options.now ?? Date.now()) / 1000;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('stale_timestamp', `The timestamp is not within ${tolerance} s of now.`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  const given = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
  if (!given || !timingSafeEqual(Buffer.from(given[1]!, 'hex'), expected)) {
    throw new WebhookVerificationError('bad_signature', 'The signature does not match this body and secret.');
  }
  try {
    return JSON.parse(Buffer.from(body).toString('utf8')) as Job;
  } catch {
    throw new WebhookVerificationError('bad_body', 'The signed body is not JSON.');
  }
}

function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
