import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors.js';

/** Deeper than any body within the limits can need (4 096-byte metadata nests at most ~2 040
 * levels), shallow enough that no recursive walk can overflow the stack. */
export const MAX_JSON_DEPTH = 2_048;

/**
 * Nesting depth of a JSON text, counted without parsing it (brackets inside strings are
 * skipped). Stops counting once past `limit`.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/**
 * JSON bodies through fastify's own parser (which refuses __proto__ poisoning), after a
 * nesting check, so that no later step (metadata size, idempotency hashing) recurses into a
 * hostile document.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
      done(new ApiError('INVALID_REQUEST', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, { field: 'body' }), undefined);
      return;
    }
    parseJson(request, body, done);
  });
}
