/**
 * Files in a prompt through the API (decisions.md, "Attachments"): native JSON `attachments`,
 * the same request as multipart/form-data, and chat completions' content parts. What the
 * service is handed (names, types, bytes and SHA-256, in order), and every refusal: a 4xx in
 * the envelope naming the field, with nothing stored.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';
import { asJson, dataUrl, multipart, sampleFiles, sha256, watchSubmissions, type Part, type TestFile } from '../support/attachment-requests.js';
import type { AttachmentRules } from '../../main/core/attachments.js';
import type { Provider } from '../../main/core/providers.js';
import type { Submission } from '../../main/contract/completions-port.js';

const MiB = 1024 * 1024;
const HOOK = 'https://127.0.0.1:9/hook';

/** The sites as these tests see them: ChatGPT takes images up to 1 MiB, two a message; Claude takes anything; the others no files. */
const RULES: Partial<Record<Provider, AttachmentRules>> = {
  chatgpt: { types: ['image/*'], maxFileBytes: MiB, maxFiles: 2 },
  claude: { types: null, maxFileBytes: null, maxFiles: null },
};

let t: TestService;
let watch: ReturnType<typeof watchSubmissions>;

beforeAll(async () => {
  t = await startTestService({ listen: false, agents: { chatgpt: 1, claude: 1 }, attachmentRules: (p) => RULES[p] ?? null });
});
afterAll(() => t?.stop());
beforeEach(() => {
  watch = watchSubmissions(t.service);
});
afterEach(() => {
  vi.restoreAllMocks();
});

interface Answer {
  status: number;
  body: any;
}

async function send(path: string, payload: string | Buffer, contentType: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await t.service.app.inject({
    method: 'POST',
    url: path,
    headers: { authorization: `Bearer ${t.key}`, 'content-type': contentType, ...headers },
    payload,
  });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

const native = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  send('/v1/completions', JSON.stringify({ prompt: 'Summarise these.', wait: false, callback_url: HOOK, ...body }), 'application/json', headers);

const chat = (messages: unknown[], headers?: Record<string, string>) =>
  send('/v1/chat/completions', JSON.stringify({ model: 'service/claude', messages }), 'application/json', headers);

function sendMultipart(parts: Part[], headers?: Record<string, string>, path = '/v1/completions'): Promise<Answer> {
  const { body, contentType } = multipart(parts);
  return send(path, body, contentType, headers);
}

const requestPart = (body: Record<string, unknown> = {}): Part => ({ name: 'request', data: JSON.stringify({ prompt: 'Summarise these.', wait: false, callback_url: HOOK, ...body }) });
const filePart = (f: TestFile, name = 'file'): Part => ({ name, filename: f.filename, type: f.media_type, data: f.data });

/** The one submission made since the test began, its files as every reader sees them and their data. */
function handed(): Submission {
  expect(watch.submissions).toHaveLength(1);
  return watch.submissions[0]!;
}

function expectFiles(s: Submission, files: TestFile[]): void {
  expect(s.attachments?.map(({ data, ...meta }) => ({ ...meta, data: data.toString('base64') }))).toEqual(
    files.map((f) => ({ filename: f.filename, media_type: f.media_type, bytes: f.data.length, sha256: sha256(f.data), data: f.data.toString('base64') })),
  );
}

/** A refusal in the envelope, naming `field`, and nothing stored. */
function expectRefused(answer: Answer, status: number, field: string | RegExp | null, words?: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.error.code).toBe(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST');
  expect(answer.body.error.request_id).toMatch(/^req_/);
  if (typeof field === 'string') expect(answer.body.error.details.field).toBe(field);
  else if (field !== null) expect(answer.body.error.details.field).toMatch(field);
  if (words) expect(answer.body.error.message).toMatch(words);
  expect(watch.stored()).toBe(0);
}

describe('native JSON attachments', () => {
  it('hands the service each file decoded, in order, with its size and SHA-256', async () => {
    const files = sampleFiles();
    const answer = await native({ attachments: files.map(asJson) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const s = handed();
    expectFiles(s, files);
    expect(s.attachmentFields).toEqual(['attachments.0.data', 'attachments.1.data', 'attachments.2.data']);
    // The job's fields are the request's without the files.
    expect(s.body).not.toHaveProperty('attachments');
    expect(s.body.prompt).toBe('Summarise these.');
    expect(watch.stored()).toBe(1);
  });

  it('refuses base64 that is not strictly standard, naming the file', async () => {
    const file = (data: string) => ({ filename: 'a.txt', media_type: 'text/plain', data });
    for (const data of ['aGVsbG8$', 'aGVsbG8', 'aGVs\nbG8=', 'aGVsbG8_', 'aGV=bG8=', 'QR==', 'QUI=Q===', '']) {
      const answer = await native({ attachments: [asJson(sampleFiles()[0]!), file(data)] });
      expectRefused(answer, 400, 'attachments.1.data', /"a\.txt"/);
    }
  });

  it('refuses a name that is a path, empty, too long or holds a control character', async () => {
    for (const filename of ['dir/a.txt', '..\\a.txt', '..', 'a\nb.txt', 'tab\t.txt', '\u0085x', 'photo\u202egpj.exe', 'x'.repeat(256), '']) {
      const answer = await native({ attachments: [{ filename, media_type: 'text/plain', data: 'aGk=' }] });
      expectRefused(answer, 400, 'attachments.0.filename');
    }
    // 255 characters are a name, as long as a file system holds them: 255 bytes of UTF-8.
    expectRefused(await native({ attachments: [{ filename: `${'é'.repeat(251)}.txt`, media_type: 'text/plain', data: 'aGk=' }] }), 400, 'attachments.0.filename', /255 bytes/);
    expect((await native({ attachments: [{ filename: `${'x'.repeat(251)}.txt`, media_type: 'text/plain', data: 'aGk=' }] })).status).toBe(202);
    expect((await native({ attachments: [{ filename: `${'é'.repeat(125)}.txt`, media_type: 'text/plain', data: 'aGk=' }] })).status).toBe(202);
  });

  it('refuses a media type that is not a MIME type, an unknown member, more than 10 files', async () => {
    for (const media_type of ['png', 'image/', '/png', 'image/png; charset', 'image png', '']) {
      expectRefused(await native({ attachments: [{ filename: 'a.png', media_type, data: 'aGk=' }] }), 400, 'attachments.0.media_type');
    }
    expectRefused(await native({ attachments: [{ filename: 'a.png', media_type: 'image/png', data: 'aGk=', url: 'x' }] }), 400, /^attachments\.0/);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ filename: `f${i}.txt`, media_type: 'text/plain', data: 'aGk=' }));
    expectRefused(await native({ attachments: eleven }), 400, 'attachments', /10/);
    expect((await native({ attachments: eleven.slice(0, 10) })).status).toBe(202);
  });

  it('a file over 20 MiB, or files over 50 MiB together, are 413 naming the file', async () => {
    const big = (n: number, bytes: number) => ({ filename: `big${n}.bin`, media_type: 'application/octet-stream', data: Buffer.alloc(bytes, n).toString('base64') });
    expectRefused(await native({ attachments: [big(0, 20 * MiB + 1)] }), 413, 'attachments.0.data', /big0\.bin/);
    const answer = await native({ attachments: [big(1, 17 * MiB), big(2, 17 * MiB), big(3, 17 * MiB)] });
    expectRefused(answer, 413, 'attachments.2.data', /big3\.bin/);
    expect(answer.body.error.details.limit).toBe(50 * MiB);
  }, 30_000);

  it('the body limit: 70 MiB with files, 1 MiB without (a 2 MiB body without files is 413)', async () => {
    const tooLarge = await native({ metadata: { data: 'x'.repeat(2 * MiB) } });
    expectRefused(tooLarge, 413, null);
    const padded = await send('/v1/completions', `${JSON.stringify({ prompt: 'p', wait: false, callback_url: HOOK })}${' '.repeat(2 * MiB)}`, 'application/json');
    expect(padded.status).toBe(413);
    // 2 MiB of prompt-side bytes beside a file: the file does not make room for them.
    const beside = await native({ prompt: 'p'.repeat(2 * MiB), attachments: [asJson(sampleFiles()[0]!)] });
    expect(beside.status).toBe(413);
    // A 5 MiB file is well within the limit.
    const file = { filename: 'five.bin', media_type: 'application/octet-stream', data: Buffer.alloc(5 * MiB, 7) };
    expect((await native({ attachments: [asJson(file)] })).status).toBe(202);
    // Over 70 MiB is 413 whatever it carries.
    const huge = Array.from({ length: 4 }, (_, i) => ({ filename: `h${i}`, media_type: 'application/octet-stream', data: 'A'.repeat(19 * MiB) }));
    expect((await native({ attachments: huge })).status).toBe(413);
  }, 60_000);
});

describe("the operator's limits and the providers' sites", () => {
  it('settings may lower the limits: 413 naming the file and the limit', async () => {
    await t.service.settings.setAttachmentLimit('file', 1000);
    try {
      const answer = await native({ attachments: [{ filename: 'k.bin', media_type: 'application/octet-stream', data: Buffer.alloc(1001).toString('base64') }] });
      expectRefused(answer, 413, 'attachments.0.data', /"k\.bin".*1000/);
      expect(answer.body.error.details.limit).toBe(1000);
    } finally {
      await t.service.settings.setAttachmentLimit('file', 20 * MiB);
    }
    await t.service.settings.setAttachmentLimit('total', 2000);
    try {
      const kb = (n: number) => ({ filename: `k${n}.bin`, media_type: 'application/octet-stream', data: Buffer.alloc(1000).toString('base64') });
      expectRefused(await native({ attachments: [kb(1), kb(2), kb(3)] }), 413, 'attachments.2.data', /k3\.bin/);
    } finally {
      await t.service.settings.setAttachmentLimit('total', 50 * MiB);
    }
  });

  it("with a provider, its site's rules: 400 naming the file and the limit", async () => {
    const pdf = { filename: 'report.pdf', media_type: 'application/pdf', data: Buffer.from('%PDF-1.4').toString('base64') };
    const png = asJson(sampleFiles()[0]!);
    const answer = await native({ provider: 'chatgpt', attachments: [png, pdf] });
    expectRefused(answer, 400, 'attachments.1.data', /chatgpt.*"report\.pdf".*image\/\*/);
    expectRefused(await native({ provider: 'chatgpt', attachments: [png, png, png] }), 400, 'attachments', /at most 2/);
    expectRefused(await native({ provider: 'gemini', attachments: [png] }), 400, 'attachments.0.data', /takes no files/);
    // Bound to ChatGPT by its agent rather than by name: the same rules.
    const agentId = t.agents.find((a) => a.provider === 'chatgpt')!.id;
    expectRefused(await native({ agent_id: agentId, attachments: [pdf] }), 400, 'attachments.0.data', /chatgpt.*"report\.pdf"/);
    expect((await native({ provider: 'claude', attachments: [png, pdf] })).status).toBe(202);
  });

  it('without a provider, refused only when no provider takes them all', async () => {
    const zip = { filename: 'a.zip', media_type: 'application/zip', data: 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==' };
    expect((await native({ attachments: [zip] })).status).toBe(202);
    await t.service.settings.setAttachmentLimit('file', 20 * MiB);
    const onlyOversized = (p: Provider) => (p === 'chatgpt' ? RULES.chatgpt! : null);
    const strict = await startTestService({ listen: false, agents: { chatgpt: 1 }, attachmentRules: onlyOversized });
    try {
      const key = strict.key;
      const res = await strict.service.app.inject({
        method: 'POST',
        url: '/v1/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ prompt: 'p', wait: false, callback_url: HOOK, attachments: [zip] }),
      });
      expect(res.statusCode).toBe(400);
      const body = JSON.parse(res.body);
      expect(body.error.details.field).toBe('attachments');
      expect(body.error.message).toMatch(/No provider takes these files.*chatgpt: file "a\.zip"/);
    } finally {
      await strict.stop();
    }
  });
});

describe('multipart/form-data', () => {
  it('a request part, then one part per file: the same submission as JSON', async () => {
    const files = sampleFiles();
    const answer = await sendMultipart([requestPart(), ...files.map((f) => filePart(f))]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const s = handed();
    // busboy keeps a part's media type without its parameters.
    expectFiles(s, files.map((f) => ({ ...f, media_type: f.media_type.split(';')[0]! })));
    expect(s.attachmentFields).toEqual(['attachments.0', 'attachments.1', 'attachments.2']);
  });

  it('takes the request part as a file too (curl -F request=@req.json)', async () => {
    const file = sampleFiles()[1]!;
    const answer = await sendMultipart([{ ...requestPart(), filename: 'req.json', type: 'application/json' }, filePart(file)]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(handed().attachments?.map((a) => a.filename)).toEqual([file.filename]);
  });

  it('refuses a part without a filename, a missing request, files inside the request part, an empty file, a path, too many', async () => {
    const [png] = sampleFiles();
    expectRefused(await sendMultipart([requestPart(), { name: 'notes', data: 'plain text' }]), 400, 'notes', /no filename/);
    expectRefused(await sendMultipart([filePart(png!)]), 400, 'request', /missing/);
    expectRefused(await sendMultipart([requestPart({ attachments: [asJson(png!)] }), filePart(png!)]), 400, 'attachments');
    expectRefused(await sendMultipart([requestPart(), { name: 'file', filename: 'empty.txt', type: 'text/plain', data: '' }]), 400, 'attachments.0', /empty/);
    expectRefused(await sendMultipart([requestPart(), { ...filePart(png!), filename: 'dir/pixel.png' }]), 400, 'attachments.0.filename', /path/);
    expectRefused(await sendMultipart([requestPart(), { ...filePart(png!), type: 'nonsense' }]), 400, 'attachments.0.media_type');
    expectRefused(await sendMultipart([requestPart(), ...Array.from({ length: 11 }, () => filePart(png!))]), 400, /^attachments/, /at most 10/);
    expectRefused(await sendMultipart([requestPart({ prompt: 7 })]), 400, 'prompt');
    expectRefused(await sendMultipart([{ name: 'request', data: '{"prompt":' }]), 400, 'request', /JSON/);
    expectRefused(await sendMultipart([requestPart(), requestPart()]), 400, 'request', /two/);
  });

  it('cuts a part over 20 MiB at the limit: 413 naming it', async () => {
    const answer = await sendMultipart([requestPart(), { name: 'file', filename: 'huge.bin', type: 'application/octet-stream', data: Buffer.alloc(21 * MiB) }]);
    expectRefused(answer, 413, 'attachments.0', /huge\.bin/);
  }, 30_000);

  it('is only for POST /v1/completions', async () => {
    const answer = await sendMultipart([requestPart()], {}, '/v1/chat/completions');
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.field).toBe('content-type');
  });
});

describe('chat completions content parts', () => {
  it('attaches every file of every message in order; text parts flatten as before', async () => {
    const [png, text, blob] = sampleFiles();
    const answer = await chat([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Look at this' }, { type: 'image_url', image_url: { url: dataUrl(png!), detail: 'high' } }] },
      { role: 'assistant', content: 'Seen.' },
      {
        role: 'user',
        content: [
          { type: 'file', file: { filename: text!.filename, file_data: dataUrl(text!) } },
          { type: 'text', text: 'and these' },
          { type: 'file', file: { filename: blob!.filename, file_data: dataUrl(blob!) } },
          { type: 'image_url', image_url: { url: dataUrl({ media_type: 'image/jpeg', data: png!.data }) } },
        ],
      },
    ]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const s = handed();
    expectFiles(s, [
      { ...png!, filename: 'image-1.png' },
      text!,
      blob!,
      { filename: 'image-2.jpg', media_type: 'image/jpeg', data: png!.data },
    ]);
    expect(s.attachmentFields).toEqual([
      'messages.1.content.1.image_url.url',
      'messages.3.content.0.file.file_data',
      'messages.3.content.2.file.file_data',
      'messages.3.content.3.image_url.url',
    ]);
    expect(s.body.prompt).toBe('System: Be brief.\n\nUser: Look at this\n\nAssistant: Seen.\n\nUser: and these');
  });

  it('refuses a remote URL (nothing fetched), a data URL not in base64, a file_id, an unknown part, bad base64', async () => {
    const part = (p: unknown) => [{ role: 'user', content: [{ type: 'text', text: 'see' }, p] }];
    const at = 'messages.0.content.1';
    expectRefused(await chat(part({ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } })), 400, `${at}.image_url.url`, /remote URL/);
    expectRefused(await chat(part({ type: 'image_url', image_url: { url: 'HTTP://example.com/cat.png' } })), 400, `${at}.image_url.url`, /remote URL/);
    expectRefused(await chat(part({ type: 'image_url', image_url: { url: 'ftp://example.com/cat.png' } })), 400, `${at}.image_url.url`);
    expectRefused(await chat(part({ type: 'image_url', image_url: { url: 'data:text/plain,hello' } })), 400, `${at}.image_url.url`, /base64/);
    expectRefused(await chat(part({ type: 'image_url', image_url: { url: 'data:;base64,aGk=' } })), 400, `${at}.image_url.url`, /media type/);
    expectRefused(await chat(part({ type: 'image_url', image_url: { url: 'data:image/png;base64,aGk' } })), 400, `${at}.image_url.url`, /"image-1\.png"/);
    expectRefused(await chat(part({ type: 'file', file: { file_id: 'file-abc' } })), 400, `${at}.file.file_id`);
    expectRefused(await chat(part({ type: 'file', file: { filename: 'a/b.txt', file_data: 'data:text/plain;base64,aGk=' } })), 400, `${at}.file.filename`);
    expectRefused(await chat(part({ type: 'input_audio', input_audio: { data: 'aGk=', format: 'wav' } })), 400, `${at}.type`);
    expectRefused(await chat(part({ type: 'file', file: {} })), 400, `${at}.file.file_data`);
  });

  it("checks the files against the model's provider", async () => {
    const pdf = { media_type: 'application/pdf', data: Buffer.from('%PDF-1.4') };
    const res = await send(
      '/v1/chat/completions',
      JSON.stringify({ model: 'service/chatgpt', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'file', file: { filename: 'r.pdf', file_data: dataUrl(pdf) } }] }] }),
      'application/json',
    );
    expectRefused(res, 400, 'messages.0.content.1.file.file_data', /"r\.pdf"/);
  });

  it('the body limit: files make room for 70 MiB, text alone keeps 1 MiB', async () => {
    const file = { media_type: 'application/octet-stream', data: Buffer.alloc(3 * MiB, 1) };
    const answer = await chat([{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'file', file: { filename: 'three.bin', file_data: dataUrl(file) } }] }]);
    expect(answer.status).toBe(200);
    expect(handed().attachments?.[0]?.bytes).toBe(3 * MiB);
    // A 2 MiB "url" that is no file part: 413, as any 2 MiB body without files.
    const noFile = await chat([{ role: 'user', content: [{ type: 'text', text: 'x', url: 'u'.repeat(2 * MiB) }] }]);
    expect(noFile.status).toBe(413);
  }, 30_000);
});

describe('idempotency with files', () => {
  it('the same files give the same job, in JSON or multipart; other files are a conflict', async () => {
    const files = sampleFiles();
    const key = { 'idempotency-key': `files-${Date.now()}` };
    const first = await native({ attachments: files.map(asJson) }, key);
    expect(first.status).toBe(202);
    const again = await native({ attachments: files.map(asJson) }, key);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // The same request as multipart (its types as the parts carry them).
    const plainTypes = files.map((f) => ({ ...f, media_type: f.media_type.split(';')[0]! }));
    const key2 = { 'idempotency-key': `files2-${Date.now()}` };
    const json = await native({ attachments: plainTypes.map(asJson) }, key2);
    const parts = await sendMultipart([requestPart(), ...plainTypes.map((f) => filePart(f))], key2);
    expect(parts.status).toBe(200);
    expect(parts.body.id).toBe(json.body.id);
    // One byte changed in the 300 KB file: another request.
    const changed = files.map((f, i) => (i === 2 ? { ...f, data: Buffer.concat([f.data.subarray(0, -1), Buffer.from([f.data.at(-1)! ^ 1])]) } : f));
    const conflict = await native({ attachments: changed.map(asJson) }, key);
    expect(conflict.status).toBe(409);
    // What was hashed holds each file's SHA-256, never its data.
    const hashed = watch.submissions.map((s) => JSON.stringify(s.rawBody));
    for (const text of hashed) expect(text).not.toContain(files[2]!.data.toString('base64').slice(0, 100));
    expect(hashed[0]).toContain(sha256(files[2]!.data));
  });

  it('chat: the same parts give the same job', async () => {
    const [png] = sampleFiles();
    const key = { 'idempotency-key': `chat-files-${Date.now()}` };
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: dataUrl(png!) } }] }];
    const first = await chat(messages, key);
    const again = await chat(messages, key);
    expect(first.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await chat([{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: dataUrl({ ...png!, media_type: 'image/gif' }) } }] }], key);
    expect(other.status).toBe(409);
  });
});

describe('the OpenAPI document', () => {
  it('shows attachments on the request (JSON and multipart), chat file parts, and the job’s files without data', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    const doc = JSON.parse(res.body);
    const submit = doc.paths['/v1/completions'].post;
    expect(Object.keys(submit.requestBody.content)).toEqual(['application/json', 'multipart/form-data']);
    expect(submit.requestBody.content['application/json'].schema.properties.attachments.items.required).toEqual(['filename', 'media_type', 'data']);
    expect(submit.requestBody.content['multipart/form-data'].schema.required).toEqual(['request']);
    const files = submit.responses['200'].content['application/json'].schema.properties.attachments;
    expect(Object.keys(files.items.properties)).toEqual(['filename', 'media_type', 'bytes', 'sha256']);
    const part = doc.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema.properties.messages.items.properties.content.anyOf[1].items;
    expect(Object.keys(part.properties)).toEqual(['type', 'text', 'image_url', 'file']);
  });
});

describe('every provider, every way in', () => {
  const PROVIDERS = ['chatgpt', 'claude', 'gemini', 'deepseek', 'qwen', 'perplexity'] as const;
  let all: TestService;
  beforeAll(async () => {
    // No rules given: every site takes any file within the contract's limits.
    all = await startTestService({ listen: false, agents: Object.fromEntries(PROVIDERS.map((p) => [p, 1])) });
  });
  afterAll(() => all?.stop());

  const inject = async (url: string, payload: string | Buffer, contentType: string) => {
    const res = await all.service.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${all.key}`, 'content-type': contentType }, payload });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  const lines = (files: TestFile[]) => files.map((f) => `- attachment: ${f.filename} (${f.data.length} bytes, sha256 ${sha256(f.data)})`);
  const lastLines = (text: string, n: number) => text.trimEnd().split('\n').slice(-n);

  it('native JSON, multipart and chat parts reach each provider’s agent byte for byte, and the job describes them', async () => {
    const files = sampleFiles();
    // Multipart carries a part's media type without its parameters.
    const plain = files.map((f) => ({ ...f, media_type: f.media_type.split(';')[0]! }));
    for (const provider of PROVIDERS) {
      const json = await inject('/v1/completions', JSON.stringify({ prompt: 'Read these.', provider, attachments: files.map(asJson) }), 'application/json');
      expect(json.status, `${provider} json ${JSON.stringify(json.body)}`).toBe(200);
      expect(lastLines(json.body.response, 3), `${provider} json`).toEqual(lines(files));
      expect(json.body.attachments).toEqual(files.map((f) => ({ filename: f.filename, media_type: f.media_type, bytes: f.data.length, sha256: sha256(f.data) })));

      const { body, contentType } = multipart([{ name: 'request', data: JSON.stringify({ prompt: 'Read these.', provider }) }, ...plain.map((f) => filePart(f))]);
      const parts = await inject('/v1/completions', body, contentType);
      expect(parts.status, `${provider} multipart`).toBe(200);
      expect(lastLines(parts.body.response, 3), `${provider} multipart`).toEqual(lines(plain));

      const chatFiles = [{ ...files[0]!, filename: 'image-1.png' }, files[1]!, files[2]!];
      const chatAnswer = await inject(
        '/v1/chat/completions',
        JSON.stringify({
          model: `service/${provider}`,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Read these.' },
                { type: 'image_url', image_url: { url: dataUrl(files[0]!) } },
                ...files.slice(1).map((f) => ({ type: 'file', file: { filename: f.filename, file_data: dataUrl(f) } })),
              ],
            },
          ],
        }),
        'application/json',
      );
      expect(chatAnswer.status, `${provider} chat`).toBe(200);
      expect(lastLines(chatAnswer.body.choices[0].message.content, 3), `${provider} chat`).toEqual(lines(chatFiles));
    }
  }, 60_000);
});
