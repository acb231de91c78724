/**
 * POST /v1/completions as `multipart/form-data`, for `curl -F` (decisions.md, "Attachments"):
 * a `request` part holding the JSON submission without `attachments`, and one part per file,
 * its name and type from the part's own headers. Parts are read as they arrive and cut at
 * the contract's limits, so a huge part costs at most 20 MiB before its 413.
 */
import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, invalid } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { ATTACHMENT_LIMITS, type NewAttachment } from '../core/attachments.js';
import { checkFileSet, checkFileSize, checkFilename, checkMediaType, describedFile } from './attachment-input.js';
import { bodyTooLarge, MAX_JSON_DEPTH, JsonBodyScan, routeBodyLimit } from './json-body.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The files of a multipart submission, in the order of their parts; null for a JSON body. */
    multipartFiles: NewAttachment[] | null;
  }
  interface FastifyContextConfig {
    /** The route's multipart body as the OpenAPI document describes it (main/api/openapi.ts). */
    multipartBody?: Record<string, unknown>;
  }
}

/** The name of the part that holds the JSON request. */
const REQUEST_PART = 'request';

const USE = `A multipart submission is a "${REQUEST_PART}" part holding the JSON request, then one part per file (curl -F '${REQUEST_PART}={"prompt":"…"}' -F 'file=@report.pdf').`;

/**
 * Registers the multipart parser in the plugin of the routes that take it (`carriesFiles` in
 * their config): its files go to `request.multipartFiles`, its request part becomes the body,
 * which the route's schema then checks as it checks a JSON body.
 */
export function registerMultipartBodyParser(app: FastifyInstance): void {
  app.decorateRequest('multipartFiles', null);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    if (request.routeOptions.config.carriesFiles === undefined) {
      done(new ApiError('INVALID_REQUEST', 'Send the body as JSON with Content-Type: application/json.', { field: 'content-type' }), undefined);
      return;
    }
    const parse = (text: string) =>
      new Promise<unknown>((resolve, reject) => {
        const scan = new JsonBodyScan();
        scan.feed(Buffer.from(text));
        if (scan.tooDeep) reject(invalid(REQUEST_PART, `The "${REQUEST_PART}" part is nested more than ${MAX_JSON_DEPTH} levels deep.`));
        else parseJson(request, text, (error, body) => (error ? reject(invalid(REQUEST_PART, `The "${REQUEST_PART}" part is not valid JSON. ${USE}`)) : resolve(body)));
      });
    readMultipart(request, payload, parse).then(
      ({ body, files }) => {
        request.multipartFiles = files;
        done(null, body);
      },
      (error: Error) => done(error, undefined),
    );
  });
}

interface Read {
  body: unknown;
  files: NewAttachment[];
}

function readMultipart(request: FastifyRequest, payload: NodeJS.ReadableStream, parse: (text: string) => Promise<unknown>): Promise<Read> {
  const limit = routeBodyLimit(request);
  return new Promise((resolve, reject) => {
    let busboy: InstanceType<typeof Busboy>;
    try {
      busboy = new Busboy({
        headers: request.headers as { 'content-type': string },
        // Refused below rather than stripped to its last segment: a path in a name is the caller's mistake.
        preservePath: true,
        isPartAFile: (_name, _type, filename) => filename !== undefined,
        limits: {
          fieldNameSize: 100,
          fieldSize: LIMITS.bodyBytes,
          // The request part may come as a file too (curl -F 'request=@req.json'), and one
          // more file than allowed is read, so that "too many" is told from "exactly the most".
          files: ATTACHMENT_LIMITS.maxFiles + 1,
          fileSize: ATTACHMENT_LIMITS.maxFileBytes,
          parts: ATTACHMENT_LIMITS.maxFiles + 2,
          headerPairs: 20,
        },
      });
    } catch {
      reject(invalid('content-type', 'The multipart/form-data Content-Type has no boundary.'));
      return;
    }
    let settled = false;
    let requestText: string | null = null;
    const files: NewAttachment[] = [];
    const fields: string[] = [];
    let total = 0;
    let received = 0;
    let pending = 0;
    let fileParts = 0;
    let ended = false;

    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      payload.unpipe(busboy);
      payload.removeListener('data', countBytes);
      // The rest of the body is read and dropped: the answer goes out whole, and the
      // connection is closed after it (fastify's answer to a parser's error).
      payload.resume();
      reject(error);
    };
    const maybeDone = () => {
      if (settled || !ended || pending > 0) return;
      if (requestText === null) {
        fail(invalid(REQUEST_PART, `The "${REQUEST_PART}" part is missing. ${USE}`));
        return;
      }
      if (files.length === 0 && received > LIMITS.bodyBytes) {
        fail(bodyTooLarge(false));
        return;
      }
      try {
        checkFileSet(files, fields, 'attachments');
      } catch (error) {
        fail(error as Error);
        return;
      }
      parse(requestText).then(
        (body) => {
          if (settled) return;
          settled = true;
          resolve({ body, files });
        },
        fail,
      );
    };
    const takeRequest = (text: string) => {
      if (requestText !== null) throw invalid(REQUEST_PART, `There are two "${REQUEST_PART}" parts. ${USE}`);
      requestText = text;
    };
    const countBytes = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) fail(bodyTooLarge(true));
    };

    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (settled) return;
      try {
        if (name !== REQUEST_PART) {
          throw invalid(name, `The part "${name}" has no filename: a file goes as a part with one (curl -F '${name}=@path'). ${USE}`);
        }
        if (valueTruncated) throw new ApiError('PAYLOAD_TOO_LARGE', `The "${REQUEST_PART}" part is over ${LIMITS.bodyBytes} bytes.`, { field: REQUEST_PART, limit: LIMITS.bodyBytes });
        takeRequest(value);
      } catch (error) {
        fail(error as Error);
      }
    });

    busboy.on('file', (name, stream, filename, _encoding, mimeType) => {
      if (settled) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      const index = name === REQUEST_PART ? -1 : fileParts++;
      const field = name === REQUEST_PART ? REQUEST_PART : `attachments.${index}`;
      const named = `Part "${name}" (file "${filename}")`;
      pending++;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        bytes += chunk.length;
        if (name !== REQUEST_PART) total += chunk.length;
        if (name === REQUEST_PART && bytes > LIMITS.bodyBytes) {
          fail(new ApiError('PAYLOAD_TOO_LARGE', `The "${REQUEST_PART}" part is over ${LIMITS.bodyBytes} bytes.`, { field, limit: LIMITS.bodyBytes }));
          return;
        }
        if (total > ATTACHMENT_LIMITS.maxTotalBytes) {
          fail(new ApiError('PAYLOAD_TOO_LARGE', `The files are over ${ATTACHMENT_LIMITS.maxTotalBytes} bytes (50 MiB) together, from ${named} on.`, { field, limit: ATTACHMENT_LIMITS.maxTotalBytes }));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('limit', () => {
        try {
          checkFileSize(ATTACHMENT_LIMITS.maxFileBytes + 1, field, filename);
        } catch (error) {
          fail(error as Error);
        }
      });
      stream.on('end', () => {
        pending--;
        if (settled) return;
        try {
          const data = Buffer.concat(chunks, bytes);
          if (name === REQUEST_PART) takeRequest(data.toString('utf8'));
          else {
            // A file part's own headers give its name and type; both are checked as a JSON file's are.
            const checkedName = checkFilename(filename, `${field}.filename`);
            const mediaType = checkMediaType(mimeType, `${field}.media_type`);
            if (data.length === 0) throw invalid(field, `${named} is empty: a file has at least one byte.`);
            files[index] = describedFile(checkedName, mediaType, data);
            fields[index] = field;
          }
        } catch (error) {
          fail(error as Error);
          return;
        }
        maybeDone();
      });
    });

    busboy.on('filesLimit', () => fail(invalid('attachments', `More than ${ATTACHMENT_LIMITS.maxFiles} file parts: a job takes at most ${ATTACHMENT_LIMITS.maxFiles} files.`)));
    busboy.on('partsLimit', () => fail(invalid('body', `Too many parts. ${USE}`)));
    busboy.on('error', () => fail(invalid('body', `The multipart body could not be read. ${USE}`)));
    busboy.on('finish', () => {
      ended = true;
      maybeDone();
    });
    payload.on('data', countBytes);
    payload.on('error', (error: Error) => fail(invalid('body', `The request body could not be read: ${error.message}`)));
    payload.pipe(busboy);
  });
}

/** The multipart form of a submission, for the OpenAPI document (the route checks the request part against the JSON schema). */
export const MULTIPART_SUBMISSION = {
  type: 'object',
  required: [REQUEST_PART],
  properties: {
    [REQUEST_PART]: {
      type: 'string',
      contentMediaType: 'application/json',
      description: 'The JSON submission (the application/json body) without attachments; sent first',
    },
    file: {
      type: 'array',
      items: { type: 'string', format: 'binary' },
      description:
        "One part per file, under any name but request: the part's filename and Content-Type are the file's name and type (a part without a filename is refused). " +
        'At most 10 files, 20 MiB each, 50 MiB together',
    },
  },
};
