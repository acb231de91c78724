import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { ATTACHMENT_LIMITS } from '../core/attachments.js';

/** Deeper than any body within the limits can need (4 096-byte metadata nests at most ~2 040
 * levels), shallow enough that no recursive walk can overflow the stack. */
export const MAX_JSON_DEPTH = 2_048;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route that takes files (its bodyLimit then 70 MiB): whether a parsed body carries any.
     * A body without files keeps the 1 MiB limit (decisions.md, "Attachments").
     */
    carriesFiles?: (body: unknown) => boolean;
  }
}

/**
 * The keys whose string values are a file's data: native `attachments[].data`, a chat
 * part's `image_url.url` and `file.file_data`. As a body streams in, the bytes of such
 * strings are counted apart from the rest, which stays within 1 MiB: a route that takes
 * files buffers up to 70 MiB only of what looks like files, and a 2 MiB prompt is cut at
 * 1 MiB as it always was. Whether the body really carries files is decided once it is
 * parsed (`carriesFiles`).
 */
const FILE_KEYS = new Set(['data', 'url', 'file_data']);
const LONGEST_FILE_KEY = 9;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Reads a JSON text as it arrives without parsing it: its nesting depth, and how many of its
 * bytes are inside strings under FILE_KEYS. Only the structure is followed (brackets inside
 * strings are skipped); a malformed text is the parser's to refuse afterwards.
 */
export class JsonBodyScan {
  fileBytes = 0;
  otherBytes = 0;
  tooDeep = false;
  /** For each open bracket: true for an object. */
  private readonly open: boolean[] = [];
  private expectKey = false;
  private inString = false;
  private escaped = false;
  private stringIsKey = false;
  private stringIsFile = false;
  private key = '';
  private lastKey = '';

  feed(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.inString) {
        const start = i;
        if (this.escaped) {
          this.escaped = false;
          i++;
        }
        // The body of a string, up to its end or an escape, in one step.
        while (i < n) {
          const c = chunk[i]!;
          if (c === QUOTE || c === BACKSLASH) break;
          i++;
        }
        if (this.stringIsKey && this.key.length <= LONGEST_FILE_KEY) this.key += chunk.toString('latin1', start, Math.min(i, start + LONGEST_FILE_KEY + 1));
        this.count(i - start);
        if (i >= n) break;
        if (chunk[i] === BACKSLASH) {
          this.escaped = true;
          // An escaped key is no file key; its length ends the match.
          if (this.stringIsKey) this.key += '\\';
          // Some encoders escape every / of base64 (\/): still the file's bytes.
          this.count(1);
        } else {
          this.inString = false;
          if (this.stringIsKey) {
            this.lastKey = this.key;
            this.expectKey = false;
          }
          this.otherBytes++;
        }
        i++;
        continue;
      }
      const c = chunk[i]!;
      this.otherBytes++;
      i++;
      switch (c) {
        case QUOTE: {
          const inObject = this.open[this.open.length - 1] === true;
          this.inString = true;
          this.stringIsKey = inObject && this.expectKey;
          this.stringIsFile = inObject && !this.expectKey && FILE_KEYS.has(this.lastKey);
          this.key = '';
          break;
        }
        case 0x7b /* { */:
        case 0x5b /* [ */:
          this.open.push(c === 0x7b);
          this.expectKey = c === 0x7b;
          if (this.open.length > MAX_JSON_DEPTH) this.tooDeep = true;
          break;
        case 0x7d /* } */:
        case 0x5d /* ] */:
          this.open.pop();
          this.expectKey = false;
          this.lastKey = '';
          break;
        case 0x2c /* , */:
          this.expectKey = this.open[this.open.length - 1] === true;
          this.lastKey = '';
          break;
      }
    }
  }

  private count(bytes: number): void {
    if (this.stringIsFile) this.fileBytes += bytes;
    else this.otherBytes += bytes;
  }
}

/** The 413 of a body over the limit that applies to it. */
export function bodyTooLarge(withFiles: boolean): ApiError {
  return withFiles
    ? new ApiError('PAYLOAD_TOO_LARGE', `The request body is over ${ATTACHMENT_LIMITS.bodyBytes} bytes (70 MiB), the limit of a request with files.`, {
        limit: ATTACHMENT_LIMITS.bodyBytes,
      })
    : new ApiError('PAYLOAD_TOO_LARGE', `The request body is over ${LIMITS.bodyBytes} bytes (70 MiB only for a request with files).`, { limit: LIMITS.bodyBytes });
}

/** The route's body limit: 1 MiB, or 70 MiB where it takes files. */
export function routeBodyLimit(request: FastifyRequest): number {
  return request.routeOptions.bodyLimit ?? LIMITS.bodyBytes;
}

/**
 * JSON bodies through fastify's own parser (which refuses __proto__ poisoning), read as they
 * arrive so that a body is refused at the limit that applies to it (1 MiB, or 70 MiB of which
 * all but 1 MiB files), and after a nesting check, so that no later step (metadata size,
 * idempotency hashing) recurses into a hostile document.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const limit = routeBodyLimit(request);
    const takesFiles = request.routeOptions.config.carriesFiles !== undefined;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      done(bodyTooLarge(takesFiles), undefined);
      return;
    }
    const scan = new JsonBodyScan();
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const finish = (error: Error | null, body?: unknown) => {
      if (finished) return;
      finished = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      chunks.length = 0;
      done(error, body);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      scan.feed(bytes);
      if (received > limit || scan.otherBytes > LIMITS.bodyBytes) {
        finish(bodyTooLarge(takesFiles && received > limit));
        return;
      }
      if (scan.tooDeep) {
        finish(new ApiError('INVALID_REQUEST', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, { field: 'body' }));
        return;
      }
      chunks.push(bytes);
    };
    const onError = (error: Error & { statusCode?: number }) => {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      finish(error);
    };
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared) {
        finish(new ApiError('INVALID_REQUEST', 'The request body is not as long as its Content-Length says.', { field: 'body' }));
        return;
      }
      const text = Buffer.concat(chunks, received).toString('utf8');
      chunks.length = 0;
      parseJson(request, text, (error, body) => {
        if (error) finish(error);
        else if (received > LIMITS.bodyBytes && !request.routeOptions.config.carriesFiles?.(body)) finish(bodyTooLarge(false));
        else finish(null, body);
      });
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}
