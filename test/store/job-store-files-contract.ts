/**
 * The JobStore contract, a job's files: their description on the job, their bytes beside it,
 * read back chunk by chunk byte for byte, and gone with the prompt (retention) or the job
 * (delete, purge). Both engines run it (job-store-contract.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AgentFailure } from '../../main/core/agent.js';
import { writeAttemptFiles } from '../../main/queue/attempt-files.js';
import { describe, expect, it } from 'vitest';
import { STORED_CHUNK_BYTES } from '../../main/core/attachments.js';
import type { JobStore } from '../../main/queue/job-store.js';
import { T0 } from '../support/new-job.js';
import { succeeded, type StoreFixture } from './job-store-fixture.js';
import { newAttachment as attachment } from '../support/new-attachment.js';


async function bytesOf(store: JobStore, id: string, position: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of store.fileChunks(id, position)) {
    expect(chunk.length).toBeLessThanOrEqual(STORED_CHUNK_BYTES);
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

export function filesContract(f: StoreFixture): void {
  const { submit, running } = f;
  // Two and a half chunks, an empty file, and a name with non-ASCII: what a reader must get back exactly.
  const big = randomBytes(Math.floor(STORED_CHUNK_BYTES * 2.5));
  const files = () => [
    attachment('scan.bin', big),
    attachment('empty.txt', Buffer.alloc(0), 'text/plain'),
    attachment('résumé été.md', Buffer.from('# Überschrift\n\nnaïve café ☕\n'), 'text/markdown'),
  ];

  describe("a job's files", () => {
    it('describes them on the job, in order, never their bytes, and reads their bytes back byte for byte', async () => {
      const sent = files();
      const job = await submit({}, { queuedLimit: 1000, attachments: sent });
      const described = sent.map(({ filename, media_type, bytes, sha256 }) => ({ filename, media_type, bytes, sha256 }));
      expect(job.attachments).toEqual(described);
      expect((await f.store.get(job.id))!.attachments).toEqual(described);
      expect((await f.store.view(job.id))!.attachments).toEqual(described);
      expect((await f.store.recent(1))[0]!.attachments).toEqual(described);
      // What routing reads: the queued jobs with their files described.
      expect((await f.store.queuedInOrder()).find((q) => q.id === job.id)!.attachments).toEqual(described);
      expect(JSON.stringify(await f.store.get(job.id))).not.toContain('"data"');
      for (const [position, file] of sent.entries()) expect((await bytesOf(f.store, job.id, position)).equals(file.data)).toBe(true);
      expect(await f.t.fileRows(job.id)).toBe(3 + 1 + 1);
      // Still there once dispatched: an attempt reads them then.
      const [dispatched] = await f.store.dispatch([f.claim(job)], T0 + 100);
      expect(dispatched!.attachments).toEqual(described);
      expect((await bytesOf(f.store, job.id, 0)).equals(big)).toBe(true);
    });

    it('a job without files has none: an empty list, no bytes', async () => {
      const job = await submit();
      expect(job.attachments).toEqual([]);
      expect((await f.store.view(job.id))!.attachments).toEqual([]);
      expect(await bytesOf(f.store, job.id, 0)).toHaveLength(0);
    });

    it('stores nothing for a submission refused or answered by its idempotency entry', async () => {
      const key = { key: 'k-files', hash: 'h', ttlMs: 60_000, onOtherHash: 'conflict' as const };
      const first = await submit({}, { queuedLimit: 1000, idempotency: key, attachments: [attachment('a.bin', Buffer.from('first'))] });
      const again = await f.store.submit({ job: { ...first, id: `${first.id}_2` }, queuedLimit: 1000, idempotency: key, attachments: files() });
      expect(again).toMatchObject({ kind: 'found', job: { id: first.id } });
      expect(await f.t.fileRows(`${first.id}_2`)).toBe(0);
      expect((await bytesOf(f.store, first.id, 0)).toString()).toBe('first');
      const full = await f.store.submit({ job: { ...first, id: `${first.id}_3` }, queuedLimit: 1, attachments: files() });
      expect(full).toEqual({ kind: 'queue_full' });
      const refused = await f.store.submit({ job: { ...first, id: `${first.id}_4` }, queuedLimit: 1000, refuseNew: true, attachments: files() });
      expect(refused).toEqual({ kind: 'refused' });
      expect(await f.t.fileRows(`${first.id}_3`)).toBe(0);
      expect(await f.t.fileRows(`${first.id}_4`)).toBe(0);
    });

    it('retention removes the bytes with the prompt, and keeps the description', async () => {
      const job = await running({ account_id: null });
      const withFiles = await submit({}, { queuedLimit: 1000, attachments: files() });
      const [dispatched] = await f.store.dispatch([f.claim(withFiles)], T0 + 1000);
      await f.store.endAttempt(dispatched!.id, 1, succeeded(), T0 + 2000);
      await f.store.endAttempt(job.id, 1, succeeded(), T0 + 2000);
      const kept = await submit({}, { queuedLimit: 1000, attachments: files() });
      expect(await f.store.pruneContent(T0 + 5000, T0 + 9000, 10)).toBe(2);
      expect(await f.t.fileRows(withFiles.id)).toBe(0);
      expect(await bytesOf(f.store, withFiles.id, 0)).toHaveLength(0);
      expect(await f.store.get(withFiles.id)).toMatchObject({ prompt: '', content_pruned_at: T0 + 9000, attachments: files().map(({ data: _, ...meta }) => meta) });
      // A live job's files stay.
      expect(await f.t.fileRows(kept.id)).toBe(5);
    });

    it("an attempt's folder gets them byte for byte under their own names, and a file the store lost fails it attachment_failed", async () => {
      const sent = files();
      const job = await submit({}, { queuedLimit: 1000, attachments: sent });
      const written = await writeAttemptFiles(f.store, job, 1);
      expect(written.files.map((w) => basename(w.path))).toEqual(sent.map((s) => s.filename));
      for (const [i, w] of written.files.entries()) expect(readFileSync(w.path).equals(sent[i]!.data)).toBe(true);
      await written.remove();
      expect(written.files.some((w) => existsSync(w.path))).toBe(false);
      // Its bytes gone under it (another instance pruned it): the attempt cannot give the page the file.
      await f.store.cancel(job.id, T0 + 10);
      await f.store.pruneContent(T0 + 20, T0 + 30, 10);
      const lost = await writeAttemptFiles(f.store, (await f.store.get(job.id))!, 2).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(AgentFailure);
      expect(lost).toMatchObject({ kind: 'attachment_failed', message: expect.stringContaining('"scan.bin"') });
    });

    it('deleting or purging a job removes its bytes', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const job = await submit({}, { queuedLimit: 1000, attachments: files() });
        await f.store.cancel(job.id, T0 + 1000);
        ids.push(job.id);
      }
      expect(await f.store.delete(ids[0]!)).toEqual({ deleted: true });
      expect(await f.t.fileRows(ids[0]!)).toBe(0);
      expect(await f.t.fileRows(ids[1]!)).toBe(5);
      expect(await f.store.purgeFinishedBefore(T0 + 2000, 10)).toBe(1);
      expect(await f.t.fileRows(ids[1]!)).toBe(0);
    });
  });
}
