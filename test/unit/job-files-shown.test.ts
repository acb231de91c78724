/**
 * A submission's files from the completions port to the agent and back to every reader of
 * the job: the store keeps them with the job, the agent gets them byte for byte, and the job
 * object and webhook body of both profiles describe them (name, type, size, SHA-256), never
 * their data. On the real store in memory, scripted agents and a manual clock.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { completionDefaults, Job } from '../../main/contract/schemas.js';
import { hostedProfile, personalProfile } from '../../main/contract/profile.js';
import { newAttachment as file } from '../support/new-attachment.js';
import { queueKit, type QueueKit } from '../support/queue-kit.js';

let kit: QueueKit | undefined;
afterEach(async () => {
  expect(kit?.roundErrors ?? []).toEqual([]);
  await kit?.close();
  kit = undefined;
});


describe("a job's files, from the submission to whoever reads the job", () => {
  it('are stored with the job, reach the agent, and are described in the job object and webhook body, never sent', async () => {
    const k = (kit = await queueKit({ claude: 1 }));
    const binary = randomBytes(300_000);
    const sent = [file('photo.jpg', randomBytes(5_000), 'image/jpeg'), file('Äpfel.csv', Buffer.from('ä;ö\n'), 'text/csv'), file('data.bin', binary, 'application/octet-stream')];
    const { job } = await k.completions.submit({
      body: { ...completionDefaults(), prompt: 'summarise these', callback_url: 'https://hooks.example/h' },
      idempotencyKey: undefined,
      path: '/v1/completions',
      rawBody: { prompt: 'summarise these' },
      apiKeyId: 'key_test',
      accountId: null,
      attachments: sent,
    });
    const described = sent.map(({ filename, media_type, bytes, sha256 }) => ({ filename, media_type, bytes, sha256 }));
    expect(job.attachments).toEqual(described);
    await k.settled();
    expect(k.agents[0]!.runs[0]!.files.map((f) => [f.filename, f.bytes, f.sha256])).toEqual(sent.map((f) => [f.filename, f.bytes, f.sha256]));
    const done = (await k.store.view(job.id))!;
    expect(done.status).toBe('succeeded');
    for (const profile of [personalProfile, hostedProfile]) {
      expect(profile.jobObject(done, 'claude-1').attachments).toEqual(described);
      const body = profile.webhookBody(done, 'claude-1');
      const parsed = JSON.parse(body) as { attachments: unknown };
      expect(parsed.attachments).toEqual(described);
      // The bytes themselves, in any spelling, are nowhere in what a reader gets.
      expect(body).not.toContain(binary.subarray(0, 32).toString('base64'));
      expect(body).not.toContain('"data"');
      // In the order GET serialises: the schema's required fields, then its optional ones, each in schema order.
      const fields = Object.keys(Job.properties);
      const required = new Set<string>(Job.required);
      const order = [...fields.filter((k) => required.has(k)), ...fields.filter((k) => !required.has(k))];
      const keys = Object.keys(parsed);
      expect(keys).toContain('attachments');
      expect(keys).toEqual(order.filter((k) => keys.includes(k)));
    }
  });

  it('a job without files shows an empty list', async () => {
    const k = (kit = await queueKit({ claude: 1 }));
    const { job } = await k.completions.submit({
      body: { ...completionDefaults(), prompt: 'no files' },
      idempotencyKey: undefined,
      path: '/v1/completions',
      rawBody: { prompt: 'no files' },
      apiKeyId: 'key_test',
      accountId: null,
    });
    expect(personalProfile.jobObject(job, null).attachments).toEqual([]);
    expect(JSON.parse(personalProfile.webhookBody(job, null))).toMatchObject({ attachments: [] });
  });
});
