/**
 * A job's files as the API receives them (decisions.md, "Attachments"), whichever way they
 * came in (native base64, multipart parts, chat data URLs): each name, type and data checked
 * against the contract, decoded, and described by its size and SHA-256. What the operator's
 * settings and the provider's site allow is checked later, at submission
 * (main/service/submission.ts); this is what no request may exceed.
 */
import { createHash } from 'node:crypto';
import { ApiError, invalid } from '../core/errors.js';
import { ATTACHMENT_LIMITS, type NewAttachment } from '../core/attachments.js';

// Control characters: C0, DEL and C1, and the bidirectional controls that make a name read
// as another ("gpj.exe" shown as "exe.jpg"). A name is shown in a file chooser and typed
// nowhere, but a line break or an escape in it would reach the page, a site's logs, terminals.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * What a file name may take on disk: the agent hands the page a file of exactly this name
 * (main/queue/attempt-files.ts), and Linux, macOS and Windows file systems hold 255 bytes of
 * UTF-8 in a name. A name within the contract's 255 characters but over that (255 Cyrillic
 * letters are 510 bytes) could never run: refused here, not failed at its attempt.
 */
const FILENAME_BYTES = 255;

/** Refuses a file name that is empty, over 255 characters (or 255 bytes), a path, or holds a control character. */
export function checkFilename(name: string, field: string): string {
  const chars = [...name].length;
  if (chars === 0) throw invalid(field, `${field} is empty: a file needs a name.`);
  if (chars > ATTACHMENT_LIMITS.filenameChars) throw invalid(field, `${field} is over ${ATTACHMENT_LIMITS.filenameChars} characters.`);
  if (Buffer.byteLength(name) > FILENAME_BYTES) {
    throw invalid(field, `${field} is over ${FILENAME_BYTES} bytes in UTF-8, more than a file's name can hold on disk: give it a shorter name.`);
  }
  if (name.includes('/') || name.includes('\\')) {
    throw invalid(field, `${field} "${name}" is a path: give the file's name alone, without / or \\.`);
  }
  if (name === '.' || name === '..') throw invalid(field, `${field} "${name}" is not a file name.`);
  if (CONTROL.test(name)) throw invalid(field, `${field} holds a control character (a line break, a tab, a right-to-left mark or the like).`);
  return name;
}

// RFC 9110's token characters for the type and subtype, then parameters (token=token or a quoted string).
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\u0000-\\u001f]*"))*$`);
const MEDIA_TYPE_CHARS = 255;

/** Refuses a media type that is not a MIME type (`image/png`, `text/plain; charset=utf-8`); returns it trimmed. */
export function checkMediaType(type: string, field: string): string {
  const trimmed = type.trim();
  if (trimmed.length === 0) throw invalid(field, `${field} is empty: give the file's MIME type, such as image/png or application/pdf.`);
  if (trimmed.length > MEDIA_TYPE_CHARS || !MEDIA_TYPE.test(trimmed)) {
    throw invalid(field, `${field} "${trimmed.slice(0, 60)}" is not a MIME type, such as image/png or application/pdf.`);
  }
  return trimmed;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_VALUES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Standard base64, strictly: the alphabet only (no line breaks, no URL-safe `-` and `_`),
 * padded to a multiple of 4, and no stray bits in the last character, so that one file has
 * one spelling (its idempotency hash is of its bytes). The size is checked before decoding.
 */
export function decodeBase64(text: string, field: string, filename: string): Buffer {
  const named = `${field} (file "${filename}")`;
  if (text.length === 0) throw invalid(field, `${named} is empty: a file has at least one byte.`);
  if (!BASE64.test(text)) {
    const at = text.search(/[^A-Za-z0-9+/=]/);
    const what = at >= 0 ? `a character outside standard base64 at position ${at}` : 'a = before the end';
    throw invalid(field, `${named} is not standard base64: it has ${what} (line breaks and the URL-safe - and _ are not base64 here; use base64 -w0).`);
  }
  if (text.length % 4 !== 0) throw invalid(field, `${named} is not standard base64: its length is not a multiple of 4 (missing = padding?).`);
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const last = BASE64_VALUES.indexOf(text[text.length - 1 - padding]!);
  if ((padding === 2 && (last & 0xf) !== 0) || (padding === 1 && (last & 0x3) !== 0)) {
    throw invalid(field, `${named} is not standard base64: its last character before the padding is not one an encoder writes.`);
  }
  const bytes = (text.length / 4) * 3 - padding;
  checkFileSize(bytes, field, filename);
  return Buffer.from(text, 'base64');
}

/** Refuses a file over the contract's 20 MiB (413, as a body too large is). */
export function checkFileSize(bytes: number, field: string, filename: string): void {
  if (bytes > ATTACHMENT_LIMITS.maxFileBytes) {
    throw new ApiError('PAYLOAD_TOO_LARGE', `File "${filename}" is over ${ATTACHMENT_LIMITS.maxFileBytes} bytes (20 MiB), the most a file may have.`, {
      field,
      limit: ATTACHMENT_LIMITS.maxFileBytes,
    });
  }
}

/** A checked file with its size and SHA-256. */
export function describedFile(filename: string, mediaType: string, data: Buffer): NewAttachment {
  return { filename, media_type: mediaType, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex'), data };
}

/**
 * Refuses more than 10 files, or more than 50 MiB together (413). `fields[i]` is where the
 * i-th file was written.
 */
export function checkFileSet(files: readonly NewAttachment[], fields: readonly string[], listField: string): void {
  if (files.length > ATTACHMENT_LIMITS.maxFiles) {
    throw invalid(fields[ATTACHMENT_LIMITS.maxFiles] ?? listField, `${files.length} files: a job takes at most ${ATTACHMENT_LIMITS.maxFiles}.`);
  }
  let total = 0;
  files.forEach((file, i) => {
    total += file.bytes;
    if (total > ATTACHMENT_LIMITS.maxTotalBytes) {
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `The files are over ${ATTACHMENT_LIMITS.maxTotalBytes} bytes (50 MiB) together, from file "${file.filename}" on.`,
        { field: fields[i] ?? listField, limit: ATTACHMENT_LIMITS.maxTotalBytes },
      );
    }
  });
}

/** Native JSON's `attachments`, already shaped by the schema: each checked and decoded, in order. */
export function decodeNativeAttachments(list: readonly { filename: string; media_type: string; data: string }[]): {
  files: NewAttachment[];
  fields: string[];
} {
  const fields = list.map((_, i) => `attachments.${i}.data`);
  const files = list.map((a, i) => {
    const filename = checkFilename(a.filename, `attachments.${i}.filename`);
    const mediaType = checkMediaType(a.media_type, `attachments.${i}.media_type`);
    return describedFile(filename, mediaType, decodeBase64(a.data, fields[i]!, filename));
  });
  checkFileSet(files, fields, 'attachments');
  return { files, fields };
}
