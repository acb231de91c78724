/**
 * Files in a prompt (decisions.md, "Attachments"): the shapes every room shares, and the
 * limits of the contract. The data itself never travels with a job's description: the
 * store keeps it beside the job, an agent gets it as files on disk for its attempt.
 */
import type { Provider } from './providers.js';

const MiB = 1024 * 1024;

/** The contract's limits on a job's files; settings may lower the two sizes. */
export const ATTACHMENT_LIMITS = {
  maxFiles: 10,
  maxFileBytes: 20 * MiB,
  maxTotalBytes: 50 * MiB,
  /** The body limit of a submission that carries files (1 MiB without: LIMITS.bodyBytes). */
  bodyBytes: 70 * MiB,
  filenameChars: 255,
  /** How long an agent waits for the page to show a file attached, its upload finished. */
  uploadMs: 60_000,
} as const;

/** A file of a job as every reader of the job sees it (job object, webhook, dashboard): never its data. */
export interface AttachmentMeta {
  filename: string;
  media_type: string;
  /** Its size decoded. */
  bytes: number;
  /** Its SHA-256, lower-case hex. */
  sha256: string;
}

/** A file as a submission brings it: its description and its decoded bytes. */
export interface NewAttachment extends AttachmentMeta {
  data: Buffer;
}

/** A file as an agent gets it: written to a folder private to the attempt, removed after it. */
export interface AttachmentFile extends AttachmentMeta {
  path: string;
}

/**
 * What a provider's site takes, from its pack (with sources and dates there). `types` are
 * MIME types, `type/*` patterns or `.ext` file endings; a file is taken when its media type
 * or its name's ending matches one; null: any type. A null limit: none known.
 */
export interface AttachmentRules {
  types: readonly string[] | null;
  maxFileBytes: number | null;
  maxFiles: number | null;
}

/** A provider's rules in the packs in force; null: its site takes no files. */
export type AttachmentCatalog = (provider: Provider) => AttachmentRules | null;

/**
 * Whether a provider's site takes every one of a job's files: null when it does, else why not,
 * naming the first file refused and the limit it breaks (said to the caller in a 400 at
 * submission; used by routing to pass over providers). `rules` null: the site takes no files.
 * A job without files is taken by any provider.
 */
export function filesRefused(rules: AttachmentRules | null, files: readonly AttachmentMeta[]): string | null {
  if (files.length === 0) return null;
  if (rules === null) return `the provider's site takes no files (file "${files[0]!.filename}")`;
  if (rules.maxFiles !== null && files.length > rules.maxFiles) {
    return `${files.length} files, but the provider's site takes at most ${rules.maxFiles} a message`;
  }
  for (const file of files) {
    if (rules.maxFileBytes !== null && file.bytes > rules.maxFileBytes) {
      return `file "${file.filename}" is ${file.bytes} bytes, but the provider's site takes at most ${rules.maxFileBytes} bytes a file`;
    }
    if (rules.types !== null && !rules.types.some((pattern) => typeMatches(pattern, file))) {
      return `file "${file.filename}" (${file.media_type}) is not a type the provider's site takes (${rules.types.join(', ')})`;
    }
  }
  return null;
}

/** A pattern of AttachmentRules.types against a file: its media type (parameters aside) or its name's ending. */
function typeMatches(pattern: string, file: AttachmentMeta): boolean {
  const wanted = pattern.trim().toLowerCase();
  if (wanted.startsWith('.')) return file.filename.toLowerCase().endsWith(wanted);
  const mediaType = file.media_type.split(';')[0]!.trim().toLowerCase();
  if (wanted.endsWith('/*')) return mediaType.startsWith(wanted.slice(0, -1));
  return mediaType === wanted;
}

/** A file's description alone, without its bytes or path: what a job row keeps and every reader is shown. */
export function attachmentMeta({ filename, media_type, bytes, sha256 }: AttachmentMeta): AttachmentMeta {
  return { filename, media_type, bytes, sha256 };
}

/**
 * The bytes of a stored file are kept in chunks of this size (the last shorter): a reader
 * holds one chunk at a time, whatever the file's size.
 */
export const STORED_CHUNK_BYTES = 1024 * 1024;

/** A file's bytes cut in stored chunks: views of `data`, nothing copied. */
export function storedChunks(data: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; at += STORED_CHUNK_BYTES) chunks.push(data.subarray(at, at + STORED_CHUNK_BYTES));
  // An empty file is one empty chunk: its presence says the file was stored.
  return chunks.length > 0 ? chunks : [data];
}
