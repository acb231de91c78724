/**
 * The files a simulated site receives: the page posts each file's bytes as it is attached
 * (`POST /__sim/upload?draft=…&name=…&type=…`, the body the file), and the site keeps it with
 * the page's draft (the message being written) until a send takes it or its chip is removed.
 * What it keeps of a file is its name, type, size and SHA-256, computed as the body streams
 * in: the bytes themselves are never held, so ten large files cost no memory here.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { maxBytesFor, refusalOf, type FileLimits, type FileRules } from './file-rules.js';

/** A real upload is never instant: the least time one takes, unless its name asks for more. */
export const DEFAULT_UPLOAD_MS = 150;

/** What the site's log says of one upload. */
export interface UploadRecord {
  id: string;
  name: string;
  type: string;
  /** Bytes received (for a refusal before reading, what the request declared, or 0). */
  bytes: number;
  /** Hex SHA-256 of the bytes; empty until the whole file is in. */
  sha256: string;
  at: number;
  /** receiving → stored → sent; or refused (with the site's words), cancelled (the page gave up mid-upload), removed (its chip was removed). */
  state: 'receiving' | 'stored' | 'refused' | 'cancelled' | 'removed' | 'sent';
  refusal?: string;
}

/** A file as a send carries it, and as the answer lists it. */
export interface SentFile {
  name: string;
  type: string;
  bytes: number;
  sha256: string;
}

/** What the page gets back for an upload. */
export type UploadReply = { ok: true; id: string; name: string; bytes: number; sha256: string } | { ok: false; refusal: string };

export interface SiteUploads {
  receive(req: http.IncomingMessage, url: URL): Promise<UploadReply | null>;
  /** The page removed a finished file's chip. */
  remove(draft: string, id: string): void;
  /** The draft's files named by `ids`, in that order, taken out of it for a send (unknown ids are left out). */
  take(draft: string | null, ids: readonly string[]): SentFile[];
}

export function siteUploads(rules: FileRules, limits: FileLimits, records: UploadRecord[], clock: () => number): SiteUploads {
  /** Per draft, its files still receiving or stored, by id. */
  const drafts = new Map<string, Map<string, UploadRecord>>();
  let next = 0;

  const draftOf = (id: string) => {
    let draft = drafts.get(id);
    if (!draft) drafts.set(id, (draft = new Map()));
    return draft;
  };

  return {
    async receive(req, url) {
      const draftId = url.searchParams.get('draft') ?? '';
      const name = url.searchParams.get('name') ?? '';
      const type = url.searchParams.get('type') ?? '';
      if (!draftId || !name) {
        req.resume();
        return { ok: false, refusal: 'An upload names its draft and its file.' };
      }
      const started = clock();
      const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
      const draft = draftOf(draftId);
      const record: UploadRecord = { id: `file-${++next}`, name, type, bytes: declared ?? 0, sha256: '', at: started, state: 'receiving' };
      records.push(record);
      const refuse = (refusal: string): UploadReply => {
        draft.delete(record.id);
        record.state = 'refused';
        record.refusal = refusal;
        return { ok: false, refusal };
      };
      const early = draft.size >= limits.perMessage ? rules.words.tooMany(name, limits.perMessage) : refusalOf(rules, limits, name, type, declared);
      if (early) {
        req.resume();
        return refuse(early);
      }
      draft.set(record.id, record);

      const max = maxBytesFor(rules, limits, type);
      const hash = createHash('sha256');
      let bytes = 0;
      const complete = await new Promise<boolean>((resolve) => {
        req.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= max) hash.update(chunk);
        });
        req.on('end', () => resolve(true));
        req.on('error', () => resolve(false));
        req.on('aborted', () => resolve(false));
      });
      record.bytes = bytes;
      if (!complete) return cancel(draft, record);
      if (bytes > max) return refuse(rules.words.tooLarge(name, max));

      // `[[sim:upload-ms=N]]` in the name: the upload takes that long in all.
      const ms = Number(/\[\[sim:upload-ms=(\d+)\]\]/.exec(name)?.[1] ?? DEFAULT_UPLOAD_MS);
      const gone = await closedWithin(req, Math.max(0, started + ms - clock()));
      if (gone) return cancel(draft, record);
      if (name.includes('[[sim:upload-fail]]')) return refuse(rules.words.failed(name));
      record.sha256 = hash.digest('hex');
      record.state = 'stored';
      return { ok: true, id: record.id, name, bytes, sha256: record.sha256 };
    },

    remove(draftId, id) {
      const record = drafts.get(draftId)?.get(id);
      if (!record) return;
      drafts.get(draftId)!.delete(id);
      record.state = 'removed';
    },

    take(draftId, ids) {
      const draft = draftId === null ? undefined : drafts.get(draftId);
      if (!draft) return [];
      const files: SentFile[] = [];
      for (const id of ids) {
        const record = draft.get(id);
        if (record?.state !== 'stored') continue;
        draft.delete(id);
        record.state = 'sent';
        files.push({ name: record.name, type: record.type, bytes: record.bytes, sha256: record.sha256 });
      }
      return files;
    },
  };
}

/** The page gave the upload up (a cancel, a closed tab): nothing of it goes anywhere. */
function cancel(draft: Map<string, UploadRecord>, record: UploadRecord): null {
  draft.delete(record.id);
  record.state = 'cancelled';
  return null;
}

/** Waits `ms`; true if the page closed the request meanwhile (aborted the upload). */
function closedWithin(req: http.IncomingMessage, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = req.socket;
    if (socket.destroyed) return resolve(true);
    const onClose = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      socket.off('close', onClose);
      resolve(false);
    }, ms);
    socket.once('close', onClose);
  });
}
