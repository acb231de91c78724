import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { ApiError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { editDistance, refusalWords } from '../core/validation-words.js';

/**
 * A request the schema refused, in the contract's words: INVALID_REQUEST naming the field
 * (`details.field`), with a message a person reads without knowing the validator ("prompt is
 * empty", not "must NOT have fewer than 1 characters"). The first error only: the validator
 * stops there.
 */

const HEADER_NAMES: Record<string, string> = { 'idempotency-key': 'Idempotency-Key' };

/** `route`: the route's path as registered, which some refusals name the way forward for. */
export function fromValidation(v: FastifySchemaValidationError, context: string, body: unknown, route?: string): ApiError {
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
  if (context === 'body' && route === '/v1/completions' && v.keyword === 'additionalProperties' && hasKey(body, 'model')) return LEGACY_COMPLETIONS;
  const message = refusalWords(field, v.keyword, params, context === 'body' ? valueAt(body, path) : undefined, v.message);
  // A required field missing next to a field of nearly its name: name the typo ("promt").
  const typo = v.keyword === 'required' && context === 'body' && v.instancePath === '' ? nearMiss(String(params.missingProperty), body) : undefined;
  if (typo !== undefined) return new ApiError('INVALID_REQUEST', `${message} The body has "${typo}": did you mean ${field}?`, { field, unknown_field: typo });
  return new ApiError('INVALID_REQUEST', message, { field });
}

/**
 * OpenAI's legacy completions call (`client.completions.create`: `model`, `prompt`,
 * `max_tokens`…) lands on the native jobs API, which shares its path: the way forward is the
 * chat completions route, which speaks OpenAI's protocol.
 */
const LEGACY_COMPLETIONS = new ApiError(
  'INVALID_REQUEST',
  "model is not a field of /v1/completions, ChatBridge's own jobs API: this is OpenAI's legacy completions call. " +
    'Ask through chat completions instead: POST /v1/chat/completions with model "service/auto" and messages [{"role": "user", "content": "…"}] ' +
    '(in the openai SDK, client.chat.completions.create).',
  { field: 'model', use: '/v1/chat/completions' },
);

function hasKey(body: unknown, key: string): boolean {
  return !!body && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, key);
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
