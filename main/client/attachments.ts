/**
 * Files for a job (decisions.md, "Attachments"), as the API takes them: `attachments` of
 * `submit` and `enqueue` (base64), or a chat message's `file` and `image_url` content parts
 * (data URLs). The service checks them again; these only shape them.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { AttachmentInput } from './types.js';

/** The media types of common file endings; anything else is application/octet-stream. */
const MEDIA_TYPES: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.heic': 'image/heic', '.heif': 'image/heif', '.bmp': 'image/bmp', '.svg': 'image/svg+xml', '.tif': 'image/tiff', '.tiff': 'image/tiff',
  '.pdf': 'application/pdf', '.txt': 'text/plain', '.log': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values', '.json': 'application/json', '.xml': 'application/xml', '.html': 'text/html', '.htm': 'text/html',
  '.css': 'text/css', '.js': 'text/javascript', '.mjs': 'text/javascript', '.ts': 'text/x-typescript', '.py': 'text/x-python',
  '.java': 'text/x-java', '.c': 'text/x-c', '.h': 'text/x-c', '.cpp': 'text/x-c++', '.go': 'text/x-go', '.rs': 'text/x-rust',
  '.rb': 'text/x-ruby', '.php': 'text/x-php', '.sh': 'text/x-shellscript', '.sql': 'application/sql', '.yaml': 'application/yaml',
  '.yml': 'application/yaml', '.toml': 'application/toml', '.rtf': 'application/rtf', '.epub': 'application/epub+zip',
  '.doc': 'application/msword', '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel', '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint', '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.odt': 'application/vnd.oasis.opendocument.text', '.zip': 'application/zip', '.gz': 'application/gzip', '.tar': 'application/x-tar',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.m4a': 'audio/mp4', '.mp4': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm',
};

/** A file's media type guessed from its name's ending. */
export function mediaTypeOf(filename: string): string {
  return MEDIA_TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

/** A file of `submit`'s `attachments`: its bytes in base64, its type guessed from its name unless given. */
export function attachment(filename: string, data: Uint8Array, mediaType = mediaTypeOf(filename)): AttachmentInput {
  return { filename, media_type: mediaType, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
}

/** A file on disk as an attachment, under its own name. */
export async function readAttachment(path: string, mediaType?: string): Promise<AttachmentInput> {
  return attachment(basename(path), await readFile(path), mediaType);
}

/** A chat content part carrying a file (`file` with its name; `image_url` for a picture, as vision clients send one). */
export function filePart(file: AttachmentInput): { type: 'file'; file: { filename: string; file_data: string } } {
  return { type: 'file', file: { filename: file.filename, file_data: `data:${file.media_type};base64,${file.data}` } };
}

