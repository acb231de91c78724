/**
 * The files of a chat completion request (decisions.md, "Attachments"): OpenAI's content
 * parts `image_url` and `file`, each a base64 data URL, every one of every message in
 * order. A remote URL is refused: the service fetches nothing on a caller's behalf.
 */
import { invalid } from '../core/errors.js';
import { attachmentMeta, type NewAttachment } from '../core/attachments.js';
import type { ChatMessage } from '../contract/schemas.js';
import { checkFileSet, checkFilename, checkMediaType, decodeBase64, describedFile } from './attachment-input.js';

/** The content parts that carry a file. */
export const FILE_PARTS = new Set(['image_url', 'file']);

type Part = { type: string; image_url?: { url?: unknown }; file?: { filename?: unknown; file_data?: unknown; file_id?: unknown } };

const DATA_URL = /^data:([^,]*?);base64,/i;

/** Where a picture without a name gets its name's ending; other types use their subtype. */
const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/svg+xml': 'svg', 'image/x-icon': 'ico', 'text/plain': 'txt' };

/** A name for a file sent without one: `image-1.png`, `file-2.pdf` (counted per kind, from 1). */
function nameFor(kind: 'image' | 'file', n: number, mediaType: string): string {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  const ending = EXTENSIONS[type] ?? (type.split('/')[1] ?? '').replace(/[^a-z0-9]/g, '').slice(0, 10);
  return `${kind}-${n}.${ending || 'bin'}`;
}

/** A data URL's type and bytes; anything else (a remote URL, a URL-encoded data URL) refused, naming `field`. */
function fromDataUrl(url: unknown, field: string, filename: string | null, kind: 'image' | 'file', n: number): NewAttachment {
  if (typeof url !== 'string' || url.length === 0) throw invalid(field, `${field} is missing: give the file as a data URL (data:<type>;base64,…).`);
  if (/^https?:/i.test(url)) {
    throw invalid(field, `${field} is a remote URL: ChatBridge fetches nothing on a caller's behalf. Send the file itself as a data URL (data:<type>;base64,…).`);
  }
  if (!/^data:/i.test(url)) throw invalid(field, `${field} is not a data URL: give the file as data:<type>;base64,….`);
  const head = DATA_URL.exec(url);
  if (!head) throw invalid(field, `${field} is a data URL without ;base64: give the file's bytes in base64 (data:<type>;base64,…).`);
  const typeText = head[1]!;
  if (typeText.trim() === '') throw invalid(field, `${field} has no media type: write it, as in data:image/png;base64,….`);
  // A copy of its own: a string cut from the URL would keep the whole URL, data and all,
  // alive for as long as the job's description is kept.
  const mediaType = Buffer.from(checkMediaType(typeText, field)).toString();
  const name = filename ?? nameFor(kind, n, mediaType);
  return describedFile(name, mediaType, decodeBase64(url.slice(head[0].length), field, name));
}

/** Every file of `messages`, in order, decoded and checked, with where each was written. */
export function filesOfMessages(messages: readonly ChatMessage[]): { files: NewAttachment[]; fields: string[] } {
  const files: NewAttachment[] = [];
  const fields: string[] = [];
  const counts = { image: 0, file: 0 };
  messages.forEach((message, i) => {
    if (typeof message.content === 'string') return;
    (message.content as Part[]).forEach((part, j) => {
      const at = `messages.${i}.content.${j}`;
      if (part.type === 'image_url') {
        const field = `${at}.image_url.url`;
        files.push(fromDataUrl(part.image_url?.url, field, null, 'image', ++counts.image));
        fields.push(field);
      } else if (part.type === 'file') {
        const file = part.file ?? {};
        if (file.file_id !== undefined && file.file_data === undefined) {
          throw invalid(`${at}.file.file_id`, `${at}.file.file_id names a file in OpenAI's storage, which ChatBridge does not have: send the file itself as file_data (a data URL).`);
        }
        if (file.filename !== undefined && typeof file.filename !== 'string') throw invalid(`${at}.file.filename`, `${at}.file.filename must be a string.`);
        const filename = typeof file.filename === 'string' ? checkFilename(file.filename, `${at}.file.filename`) : null;
        const field = `${at}.file.file_data`;
        files.push(fromDataUrl(file.file_data, field, filename, 'file', ++counts.file));
        fields.push(field);
      }
    });
  });
  checkFileSet(files, fields, 'messages');
  return { files, fields };
}

/** Whether a chat request carries any file part (its body may then be up to 70 MiB). */
export function chatCarriesFiles(body: unknown): boolean {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (m: unknown) => Array.isArray((m as { content?: unknown })?.content) && ((m as { content: unknown[] }).content).some((p) => FILE_PARTS.has((p as Part)?.type)),
  );
}

/**
 * The messages as an idempotency key compares them: each file part stands as its file's
 * description (size and SHA-256), so 50 MiB of base64 is not hashed again.
 */
export function messagesDescribed(messages: readonly ChatMessage[], files: readonly NewAttachment[]): unknown[] {
  let next = 0;
  return messages.map((message) =>
    typeof message.content === 'string'
      ? message
      : { ...message, content: (message.content as Part[]).map((part) => (FILE_PARTS.has(part.type) ? { type: part.type, attachment: attachmentMeta(files[next++]!) } : part)) },
  );
}
