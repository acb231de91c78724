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
