/**
 * A job's files on their way to the agent (queue/attempt-files.ts, queue/attempts.ts): written
 * from the store to a folder private to the attempt, each under the caller's own file name,
 * seen by a scripted agent byte for byte, and the folder gone however the attempt ends;
 * routing without a provider to the providers whose sites take them all; and the folders a
 * crashed process left swept at start. The real SQLite store in memory, a manual clock.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttachmentCatalog, NewAttachment } from '../../main/core/attachments.js';
import { sweepStaleAttemptFolders } from '../../main/queue/attempt-files.js';
import { completionDefaults } from '../../main/contract/schemas.js';
import { newAttachment as file } from '../support/new-attachment.js';
import { queueKit, type QueueKit } from '../support/queue-kit.js';

let kit: QueueKit | undefined;
afterEach(async () => {
  expect(kit?.roundErrors ?? []).toEqual([]);
  await kit?.close();
  kit = undefined;
});


// An image, a text with non-ASCII in its name and body, and a 300 KB binary: the three.
const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2_000)]);
const files = () => [
  file('screen shot.png', png, 'image/png'),
  file('notes – été.txt', Buffer.from('Grüße, 世界, naïve\n'), 'text/plain'),
  file('blob.bin', randomBytes(300_000), 'application/octet-stream'),
];
const described = (sent: NewAttachment[]) => sent.map(({ filename, media_type, bytes, sha256 }) => ({ filename, media_type, bytes, sha256 }));

describe("an attempt's files", () => {
  it('reach the agent byte for byte under their own names, in a folder only this user reads, gone once the attempt ends', async () => {
    const k = (kit = await queueKit({ chatgpt: 1 }));
    const sent = files();
    const job = await k.submit({ prompt: 'review these' }, sent);
    await k.settled();
    const [run] = k.agents[0]!.runs;
    expect(run!.files.map(({ filename, media_type, bytes, sha256 }) => ({ filename, media_type, bytes, sha256 }))).toEqual(described(sent));
    expect(new Set(run!.files.map((f) => dirname(dirname(f.path)))).size).toBe(1);
    expect(run!.files[0]!.folderMode).toBe(0o700);
    const done = await k.job(job.id);
    expect(done.status).toBe('succeeded');
    for (const f of sent) expect(done.response).toContain(`- attachment: ${f.filename} (${f.bytes} bytes, sha256 ${f.sha256})`);
    expect(existsSync(dirname(dirname(run!.files[0]!.path)))).toBe(false);
  });

  it('a job without files gives the agent none and makes no folder', async () => {
    const k = (kit = await queueKit({ chatgpt: 1 }));
    await k.submit({ prompt: 'plain' });
    await k.settled();
    expect(k.agents[0]!.runs[0]!.files).toEqual([]);
  });

  it('the folder goes when the attempt fails, and when it is cancelled', async () => {
    const k = (kit = await queueKit({ chatgpt: 1 }));
    const failing = await k.submit({ prompt: 'x [[fail=attachment_failed]]' }, files());
    await k.settled();
    expect(await k.job(failing.id)).toMatchObject({ status: 'failed', error_code: 'ATTACHMENT_FAILED' });
    const hanging = await k.submit({ prompt: 'y [[hang]]' }, files());
    await k.settled();
    const folder = dirname(dirname(k.agents[0]!.runs[1]!.files[0]!.path));
    expect(existsSync(folder)).toBe(true);
    await k.store.cancel(hanging.id, k.clock.now());
    await k.settled();
    expect(k.agents[0]!.runs[1]!.ended).toBe('cancelled');
    for (const run of k.agents[0]!.runs) expect(existsSync(dirname(dirname(run.files[0]!.path)))).toBe(false);
  });

  it('a name this file system cannot take fails the attempt attachment_failed at once, nothing sent', async () => {
    const k = (kit = await queueKit({ chatgpt: 1 }));
    // 200 characters, as the contract allows, but 400 bytes in UTF-8: more than a file name may have here.
    const job = await k.submit({ prompt: 'long name' }, [file(`${'é'.repeat(200)}.txt`, Buffer.from('x'), 'text/plain')]);
    await k.settled();
    expect(k.agents[0]!.runs).toEqual([]);
    expect(await k.job(job.id)).toMatchObject({ status: 'failed', error_code: 'ATTACHMENT_FAILED', attempts: 1 });
  });
});

describe('routing a job with files', () => {
  // ChatGPT's site (here) takes images only, two at most; Claude's any type up to 1 MB; Gemini's none.
  const rules: AttachmentCatalog = (provider) =>
    provider === 'chatgpt'
      ? { types: ['image/*'], maxFileBytes: null, maxFiles: 2 }
      : provider === 'claude'
        ? { types: null, maxFileBytes: 1_000_000, maxFiles: null }
        : null;

  it('without a provider, goes only to an agent whose site takes every file; a job no site takes waits', async () => {
    const k = (kit = await queueKit({ chatgpt: 1, gemini: 1, claude: 1 }, undefined, undefined, rules));
    const [chatgpt, gemini, claude] = k.agents;
    await k.storage.settings.setPaused(true);
    const mixed = await k.submit({ prompt: 'mixed [[hang]]' }, files());
    const image = await k.submit({ prompt: 'image' }, [file('a.png', png, 'image/png')]);
    const tooBig = await k.submit({ prompt: 'too big' }, [file('huge.png', randomBytes(1_100_000), 'image/png'), file('b.txt', Buffer.from('b'), 'text/plain')]);
    const plain = await k.submit({ prompt: 'plain' });
    await k.storage.settings.setPaused(false);
    await k.settled();
    expect((await k.job(mixed.id)).agent_id).toBe(claude!.id);
    expect((await k.job(image.id)).agent_id).toBe(chatgpt!.id);
    expect(await k.job(tooBig.id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect((await k.job(plain.id)).agent_id).toBe(gemini!.id);
    expect(gemini!.runs.map((r) => r.prompt)).toEqual(['plain']);
    expect(k.scheduler.candidates(await k.job(tooBig.id))).toEqual([]);
    // Its caller is told why it waits: a person must pair an account whose site takes the files.
    expect(k.completions.waitReason(await k.job(tooBig.id))).toMatchObject({ needsPerson: true, text: expect.stringContaining("no paired account's site takes its files") });
  });

  it('a job that must start now is refused when no free agent\'s site takes its files', async () => {
    const k = (kit = await queueKit({ chatgpt: 1 }, undefined, undefined, rules));
    const submission = (attachments: NewAttachment[]) => ({
      body: { ...completionDefaults(), prompt: `now ${attachments[0]!.filename}`, wait: false },
      idempotencyKey: undefined,
      path: '/v1/completions',
      rawBody: {},
      apiKeyId: 'key_test',
      accountId: null,
      attachments,
    });
    await expect(k.completions.submit(submission([file('a.pdf', Buffer.from('%PDF'), 'application/pdf')]))).rejects.toMatchObject({ code: 'NO_AGENT_AVAILABLE' });
    expect(await k.store.recent(10)).toEqual([]);
    expect((await k.completions.submit(submission([file('a.png', png, 'image/png')]))).created).toBe(true);
  });
});

describe('folders left by a crash', () => {
  it('are swept at start when their process is gone; a live process\'s stay', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chatbridge-sweep-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const left = join(root, `chatbridge-attempt-${gone}-job_x-1-abc`);
      const mine = join(root, `chatbridge-attempt-${process.pid}-job_y-1-def`);
      const other = join(root, 'something-else');
      for (const dir of [left, mine, other]) {
        mkdirSync(join(dir, '1'), { recursive: true });
        writeFileSync(join(dir, '1', 'f.txt'), 'x');
      }
      expect(await sweepStaleAttemptFolders(root)).toBe(1);
      expect([existsSync(left), existsSync(mine), existsSync(other)]).toEqual([false, true, true]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
