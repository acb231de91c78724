/**
 * What each simulated site takes as a file, and what it says when it refuses one. The
 * limits are the research's (/tmp/attachments-research.md, 2026-11-28: help pages and third
 * parties where the site publishes nothing); the refusal words are the simulator's own where
 * no real one is known (docs/simulator.md, "Files"), each naming the file, so an agent can
 * tell which file was refused.
 */
import type { Provider } from '../../main/core/providers.js';
import { DEEPSEEK_EXTENSIONS, PERPLEXITY_EXTENSIONS } from './client/file-types.js';

const MB = 1024 * 1024;

export interface FileLimits {
  /** Bytes a file may have. */
  maxBytes: number;
  /** Files one message may carry. */
  perMessage: number;
}

export interface FileWords {
  /** The upload failed (`[[sim:upload-fail]]`). */
  failed(name: string): string;
  tooLarge(name: string, maxBytes: number): string;
  tooMany(name: string, perMessage: number): string;
  wrongType(name: string): string;
}

export interface FileRules extends FileLimits {
  /** A lower limit for images (ChatGPT's 20 MB), or none. */
  imageMaxBytes?: number;
  /** Whether the site takes a file of this name (directives left out) and type; absent: any. */
  takes?(name: string, type: string): boolean;
  words: FileWords;
}

/** A limit as the sites write it (a test's lowered limit in KB). */
const size = (bytes: number) => (bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.round(bytes / 1024)} KB`);
const extension = (name: string) => /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
const byExtension = (list: string) => {
  const known = new Set(list.split(/\s+/).filter(Boolean));
  return (name: string) => known.has(extension(name));
};

const claudeDocument = byExtension('pdf docx txt rtf odt html epub json csv md xlsx pptx jpg jpeg png gif webp');

export const FILE_RULES: Record<Provider, FileRules> = {
  chatgpt: {
    maxBytes: 512 * MB,
    imageMaxBytes: 20 * MB,
    perMessage: 10,
    words: {
      failed: (name) => `Unable to upload ${name}`,
      tooLarge: (name, max) => `${name} is too large. Files must be under ${size(max)}.`,
      tooMany: (name) => `You've reached your file upload limit. Unable to upload ${name}`,
      wrongType: (name) => `Unable to upload ${name}`,
    },
  },
  claude: {
    maxBytes: 30 * MB,
    perMessage: 20,
    takes: (name, type) => claudeDocument(name) || type.startsWith('text/') || /^image\/(jpeg|png|gif|webp)$/.test(type),
    words: {
      failed: (name) => `${name} could not be uploaded.`,
      tooLarge: (name, max) => `${name} is over ${size(max)}.`,
      tooMany: (name, count) => `${name} could not be uploaded: a message takes up to ${count} files.`,
      wrongType: (name) => `${name} could not be uploaded: files of this type are not supported.`,
    },
  },
  gemini: {
    maxBytes: 100 * MB,
    perMessage: 10,
    words: {
      failed: (name) => `Couldn't upload ${name}`,
      tooLarge: (name, max) => `Couldn't upload ${name}. Files must be under ${size(max)}.`,
      tooMany: (name, count) => `Couldn't upload ${name}. You can upload up to ${count} files at a time.`,
      wrongType: (name) => `Couldn't upload ${name}. This file type isn't supported.`,
    },
  },
  deepseek: {
    maxBytes: 100 * MB,
    perMessage: 50,
    takes: byExtension(DEEPSEEK_EXTENSIONS),
    words: {
      failed: (name) => `Upload failed: ${name}`,
      tooLarge: (name, max) => `${name} exceeds the ${size(max)} limit`,
      tooMany: (name, count) => `Up to ${count} files at a time; ${name} was not added`,
      wrongType: (name) => `Unsupported file type: ${name}`,
    },
  },
  qwen: {
    maxBytes: 100 * MB,
    perMessage: 10,
    words: {
      failed: (name) => `${name} upload failed`,
      tooLarge: (name, max) => `${name} is larger than ${size(max)}`,
      tooMany: (name, count) => `Up to ${count} files can be uploaded; ${name} was not added`,
      wrongType: (name) => `${name}: unsupported file type`,
    },
  },
  perplexity: {
    maxBytes: 40 * MB,
    perMessage: 10,
    takes: byExtension(PERPLEXITY_EXTENSIONS),
    words: {
      failed: (name) => `Failed to upload ${name}`,
      tooLarge: (name, max) => `${name} is larger than ${size(max)}`,
      tooMany: (name, count) => `${name} was not attached: up to ${count} files per message`,
      wrongType: (name) => `${name} was not attached: this file type is not supported`,
    },
  },
};

/** A file name without the simulator's directives in it (`[[sim:upload-ms=N]]`, `[[sim:upload-fail]]`). */
export function withoutDirectives(name: string): string {
  return name.replace(/\[\[sim:[^\]]*\]\]/g, '');
}

/** Why the site refuses `name` before reading it (its words), or null. `declaredBytes`: what the request says it holds, if it says. */
export function refusalOf(rules: FileRules, limits: FileLimits, name: string, type: string, declaredBytes: number | null): string | null {
  const plain = withoutDirectives(name);
  if (rules.takes && !rules.takes(plain, type)) return rules.words.wrongType(name);
  const max = maxBytesFor(rules, limits, type);
  if (declaredBytes !== null && declaredBytes > max) return rules.words.tooLarge(name, max);
  return null;
}

/** The size limit for a file of `type`: images may have a lower one. */
export function maxBytesFor(rules: FileRules, limits: FileLimits, type: string): number {
  return type.startsWith('image/') && rules.imageMaxBytes ? Math.min(rules.imageMaxBytes, limits.maxBytes) : limits.maxBytes;
}
