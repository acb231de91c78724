/** What a submission (main/contract/completions-port.ts) is checked and keyed by: the idempotency entry it looks up, its callback_url, its times. */
import { LIMITS } from '../core/limits.js';
import { ApiError, invalid } from '../core/errors.js';
import { filesRefused, type AttachmentCatalog, type AttachmentMeta } from '../core/attachments.js';
import type { IdempotencyClaim } from '../core/jobs.js';
import { isProvider, PROVIDERS, type Provider, type VariantCatalog } from '../core/providers.js';
import type { Submission } from '../contract/completions-port.js';
import { IDEMPOTENCY_TTL_MS, requestHash } from '../queue/idempotency.js';

/**
 * How long after a request an SDK's automatic repeat of it finds its job: a whole hold
 * (600 s, after which the SDK may repeat a 504 or its own timeout) and its back-off.
 * Every repeat found starts the window again, for the SDK's next one.
 */
export const AUTOMATIC_REPEAT_WINDOW_MS = LIMITS.holdMs + 60_000;

/**
 * The implicit idempotency key of a request sent without one: the sender and what it asks.
 * A line feed can never occur in a header value, so no Idempotency-Key a caller sends can
 * equal it.
 */
function repeatKey(keyId: string, hash: string): string {
  return `\nrepeat ${keyId} ${hash}`;
}

/**
 * The idempotency entry a submission looks up and records, if any. Idempotency keys are the
 * account's own: another account's same key is another request. Without an
 * Idempotency-Key, a client's automatic repeat (the SDKs repeat a 504 or their own timeout)
 * finds the job its first request made instead of making another: the first try records
 * the implicit key without looking (ttlMs 0), a repeat looks back one window.
 */
export function idempotencyClaim(s: Submission): IdempotencyClaim | undefined {
  if (s.idempotencyKey !== undefined) {
    const key = s.accountId === null ? s.idempotencyKey : `${s.accountId} ${s.idempotencyKey}`;
    return { key, hash: requestHash(s.path, s.rawBody), ttlMs: IDEMPOTENCY_TTL_MS, onOtherHash: 'conflict' };
  }
  if (s.automaticRepeat === undefined) return undefined;
  const hash = requestHash(s.path, s.rawBody);
  return { key: repeatKey(s.apiKeyId, hash), hash, ttlMs: s.automaticRepeat ? AUTOMATIC_REPEAT_WINDOW_MS : 0, onOtherHash: 'replace' };
}

/** Refuses a `callback_url` that is not an absolute https:// URL without credentials. */
export function checkCallbackUrl(url: string | null): void {
  if (url === null) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('callback_url', 'callback_url must be an absolute https:// URL.');
  }
  if (parsed.protocol !== 'https:') throw invalid('callback_url', 'callback_url must use https://.');
  if (parsed.username || parsed.password) throw invalid('callback_url', 'callback_url must not carry credentials.');
}

/**
 * A job's attempt limit and deadline. The contract's (timeout_ms up to 600 000, default
 * 180 000; deadline_ms default 900 000), except under a long-thinking variant, whose pack
 * gives it a longer attempt limit (decisions.md, "Models and modes"): timeout_ms then goes up
 * to that limit and defaults to it, and the deadline defaults to the longest, which such an
 * attempt needs (an hour; a shorter one would end the job before its attempt could).
 */
export function jobTimes(
  body: { provider: Provider | null; variant: string | null; timeout_ms?: number; deadline_ms?: number },
  catalog: VariantCatalog,
): { timeout_ms: number; deadline_ms: number } {
  const long = body.provider && body.variant ? (catalog(body.provider).find((v) => v.id === body.variant)?.timeoutMs ?? null) : null;
  const timeout = body.timeout_ms ?? long ?? LIMITS.timeoutMs.default;
  if (timeout > (long ?? LIMITS.timeoutMs.max)) {
    throw invalid(
      'timeout_ms',
      long
        ? `timeout_ms is at most ${long} under ${body.provider}/${body.variant}.`
        : `timeout_ms is at most ${LIMITS.timeoutMs.max}; only a long-thinking variant takes more (${longVariants(catalog)}).`,
    );
  }
  return { timeout_ms: timeout, deadline_ms: body.deadline_ms ?? (long ? LIMITS.deadlineMs.max : LIMITS.deadlineMs.default) };
}

/** The long-thinking variants with their limits, for a message: "chatgpt/pro up to 2700000, …". */
function longVariants(catalog: VariantCatalog): string {
  const long = PROVIDERS.flatMap((p) => catalog(p).flatMap((v) => (v.timeoutMs ? [`${p}/${v.id} up to ${v.timeoutMs}`] : [])));
  return long.length > 0 ? long.join(', ') : 'none in the packs in force';
}

/** The operator's limits on a job's files (settings attachments): at most the contract's. */
export interface FileLimits {
  attachmentMaxFileBytes: number;
  attachmentMaxTotalBytes: number;
}

/**
 * A job's files against the operator's limits (413, as the contract's own), then against
 * what the provider's site takes (decisions.md: 400 naming the file and the limit). Without
 * a provider, the job is refused only when no provider's site takes them all; routing then
 * picks among those that do. `fields[i]` is where the request wrote the i-th file.
 */
export function checkAttachments(
  files: readonly AttachmentMeta[],
  fields: readonly string[],
  /** The provider the job is bound to (named, or its agent's or its conversation's); null: any. */
  provider: string | null,
  catalog: AttachmentCatalog,
  limits: FileLimits,
): void {
  if (files.length === 0) return;
  const listField = fields[0]?.split('.')[0] ?? 'attachments';
  const fieldOf = (file: AttachmentMeta) => fields[files.indexOf(file)] ?? listField;
  let total = 0;
  for (const file of files) {
    if (file.bytes > limits.attachmentMaxFileBytes) {
      throw new ApiError('PAYLOAD_TOO_LARGE', `File "${file.filename}" is ${file.bytes} bytes; this service takes at most ${limits.attachmentMaxFileBytes} bytes a file.`, {
        field: fieldOf(file),
        limit: limits.attachmentMaxFileBytes,
      });
    }
    total += file.bytes;
    if (total > limits.attachmentMaxTotalBytes) {
      throw new ApiError('PAYLOAD_TOO_LARGE', `The files are over ${limits.attachmentMaxTotalBytes} bytes together, the most this service takes, from file "${file.filename}" on.`, {
        field: fieldOf(file),
        limit: limits.attachmentMaxTotalBytes,
      });
    }
  }
  if (provider !== null && isProvider(provider)) {
    const rules = catalog(provider);
    const why = filesRefused(rules, files);
    if (why === null) return;
    // The first file refused on its own is the one to name; a count over the site's limit names the list.
    const culprit = files.find((file) => filesRefused(rules, [file]) !== null);
    throw new ApiError('INVALID_REQUEST', `${provider} cannot take these files: ${why}.`, { field: culprit ? fieldOf(culprit) : listField, provider });
  }
  const refusals = PROVIDERS.map((p) => [p, filesRefused(catalog(p), files)] as const);
  if (refusals.every(([, why]) => why !== null)) {
    throw invalid(listField, `No provider takes these files: ${refusals.map(([p, why]) => `${p}: ${why}`).join('; ')}.`);
  }
}
