/**
 * Files from clients over a real connection: the official `openai` package's content parts
 * (image_url and file as data URLs), and `chatbridge/client`'s submit with `attachments` and
 * chat with `filePart`. What the service is handed is each file, byte for byte, in order;
 * the scripted agent reads them from its attempt's folder and lists them in its answer, and
 * the job object describes them.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { dataUrl, sampleFiles, sha256, watchSubmissions } from '../support/attachment-requests.js';
import { attachment, ChatBridgeClient, ChatBridgeError, filePart } from '../../main/client/index.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ agents: { claude: 1 } });
});
afterAll(() => t?.stop());
afterEach(() => {
  vi.restoreAllMocks();
});

const described = (files: { filename: string; media_type: string; data: Buffer }[]) =>
  files.map((f) => ({ filename: f.filename, media_type: f.media_type, bytes: f.data.length, sha256: sha256(f.data) }));
/** The lines a scripted agent's answer ends with, one a file it found on disk. */
const answerLines = (files: { filename: string; data: Buffer }[]) =>
  files.map((f) => `\n- attachment: ${f.filename} (${f.data.length} bytes, sha256 ${sha256(f.data)})`).join('');
const handedFiles = (watch: ReturnType<typeof watchSubmissions>) =>
  watch.submissions.map((s) => s.attachments?.map((a) => ({ filename: a.filename, media_type: a.media_type, bytes: a.data.length, sha256: sha256(a.data) })));

describe('the official openai client with content parts', () => {
  it('attaches image_url and file parts, in order', async () => {
    const watch = watchSubmissions(t.service);
    const [png, notes, blob] = sampleFiles();
    const client = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 20_000 });
    const completion = await client.chat.completions.create({
      model: 'service/claude',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe these.' },
            { type: 'image_url', image_url: { url: dataUrl(png!) } },
            { type: 'file', file: { filename: notes!.filename, file_data: dataUrl(notes!) } },
            { type: 'file', file: { filename: blob!.filename, file_data: dataUrl(blob!) } },
          ],
        },
      ],
    });
    expect(handedFiles(watch)).toEqual([described([{ ...png!, filename: 'image-1.png' }, notes!, blob!])]);
    expect(completion.choices[0]!.message.content).toMatch(/Describe these\.\n- attachment/);
    expect(completion.choices[0]!.message.content!.endsWith(answerLines([{ ...png!, filename: 'image-1.png' }, notes!, blob!]))).toBe(true);
    const job = await t.api('GET', `/v1/completions/${completion.id}`);
    expect(job.body.attachments).toEqual(described([{ ...png!, filename: 'image-1.png' }, notes!, blob!]));
  });

  it('a remote image URL is its BadRequestError, nothing fetched', async () => {
    const client = new OpenAI({ apiKey: t.key, baseURL: `${t.url}/v1`, maxRetries: 0, timeout: 20_000 });
    const error = await client.chat.completions
      .create({ model: 'service/auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'messages.0.content.1.image_url.url' } });
  });
});

describe('chatbridge/client', () => {
  it('submit takes attachments, chat takes filePart; a refusal is a ChatBridgeError naming the field', async () => {
    const watch = watchSubmissions(t.service);
    const [png, notes] = sampleFiles();
    const client = new ChatBridgeClient({ baseUrl: t.url, apiKey: t.key });
    const job = await client.submit({ prompt: 'Read this.', attachments: [attachment(notes!.filename, notes!.data, notes!.media_type)] });
    expect(job.status).toBe('succeeded');
    expect(job.attachments).toEqual(described([notes!]));
    expect(job.response!.endsWith(answerLines([notes!]))).toBe(true);
    const chat = await client.chat({ model: 'service/claude', messages: [{ role: 'user', content: [{ type: 'text', text: 'And this.' }, filePart(attachment('pixel.png', png!.data))] }] });
    expect(chat.choices[0]!.message.content.endsWith(`And this.${answerLines([png!].map((f) => ({ ...f, filename: 'pixel.png' })))}`)).toBe(true);
    expect(handedFiles(watch)).toEqual([described([notes!]), described([png!])]);
    const refused = await client.submit({ prompt: 'x', attachments: [{ filename: 'a/b', media_type: 'text/plain', data: 'aGk=' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChatBridgeError);
    expect((refused as ChatBridgeError).code).toBe('INVALID_REQUEST');
    expect((refused as ChatBridgeError).details.field).toBe('attachments.0.filename');
  });
});
