/**
 * Jobs with files through the whole service (issue 32), on a site's default layout
 * (test/e2e/attachments.test.ts puts files through every layout's page): an image, a text
 * with non-ASCII and a 300 KB binary, sent through each of the API's three ways in (native
 * JSON, multipart/form-data, chat content parts), stored, written for the attempt, put through
 * a real browser agent's page and answered with each file byte for byte. On ChatGPT (its hidden
 * input) and Gemini (its upload menu and the browser's file chooser), also: a file the page
 * refuses fails the job ATTACHMENT_FAILED naming it, and a cancel while a file uploads cancels
 * the job, neither sending anything (the site's log). One service and one browser agent per site.
 * npm test runs it on those two sites (attachment-jobs.test.ts), test:full on the other four.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, afterAll } from 'vitest';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { attachmentLine, simulatedAnswer } from '../../agents/simulator/answer.js';
import { FILE_RULES } from '../../agents/simulator/file-rules.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { Provider } from '../../main/core/providers.js';
import { asJson, dataUrl, multipart } from '../support/attachment-requests.js';
import type { NewAttachment } from '../../main/core/attachments.js';
import { EVERY_ACCOUNT } from '../../main/core/jobs.js';
import { completionDefaults } from '../../main/contract/schemas.js';
import { describeBeside, inOrder } from '../support/beside.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { newAttachment } from '../support/new-attachment.js';
import { until } from '../support/until.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const file = (filename: string, media_type: string, data: Buffer) => newAttachment(filename, data, media_type);

const line = (f: NewAttachment) => attachmentLine({ name: f.filename, bytes: f.bytes, sha256: f.sha256 });

/** The sites whose refusals and cancels are tried here too: one of each way in to the page. */
const FAILURES_ON = new Set(['chatgpt', 'gemini']);

export function attachmentJobs(provider: Provider): void {
  const name = SIM_SITES[provider].name;
  describeBeside(`${name}: jobs with files through the service`, () => {
    let e: E2E;
    beforeAll(async () => {
      e = await startE2E(provider, 1);
      e.service.attachAgents(new RuntimeControl(e.runtime));
    }, 60_000);
    afterAll(async () => e?.stop());

    const submit = (prompt: string, attachments: NewAttachment[]) =>
      e.service.completions.submit({
        body: { ...completionDefaults(), prompt, provider },
        idempotencyKey: undefined,
        path: '/v1/completions',
        rawBody: { prompt, provider },
        apiKeyId: 'key_test',
        accountId: null,
        attachments,
      });

    inOrder('an image, a non-ASCII text and a 300 KB binary reach the page and the answer byte for byte, through native JSON, multipart and chat parts', async ({ expect }) => {
      const files = [
        file('screenshot.png', 'image/png', PNG),
        file('заметки-ünï.txt', 'text/plain', Buffer.from('Grüße — naïve ✓ 日本語 🚀\n', 'utf8')),
        // A binary every site takes by its name (three of them list their types): a PDF's name on random bytes.
        file('noise.pdf', 'application/pdf', randomBytes(300 * 1024)),
      ];
      const expected = (prompt: string) => simulatedAnswer(name, provider, prompt, 1, files.map((f) => ({ name: f.filename, bytes: f.bytes, sha256: f.sha256 })));
      const asTest = files.map((f) => ({ filename: f.filename, media_type: f.media_type, data: f.data }));

      const json = 'Review these files, sent as JSON [[sim:ms=40]]';
      const byJson = await e.api('POST', '/v1/completions', { body: { prompt: json, provider, wait: true, attachments: asTest.map(asJson) } });
      expect(byJson.status, JSON.stringify(byJson.body)).toBe(200);
      expect(byJson.body.response).toBe(expected(json));
      expect(byJson.body.attachments).toEqual(files.map(({ data, ...meta }) => meta));

      const form = 'Review these files, sent as a form [[sim:ms=40]]';
      const { body, contentType } = multipart([
        { name: 'request', data: JSON.stringify({ prompt: form, provider, wait: true }) },
        ...asTest.map((f, i) => ({ name: `file${i}`, filename: f.filename, type: f.media_type, data: f.data })),
      ]);
      const byForm = await fetch(`${e.url}/v1/completions`, { method: 'POST', headers: { authorization: `Bearer ${e.key}`, 'content-type': contentType }, body: new Uint8Array(body) });
      const formJob = (await byForm.json()) as { response: string };
      expect(byForm.status, JSON.stringify(formJob)).toBe(200);
      expect(formJob.response).toBe(expected(form));

      const chat = 'Review these files, sent as chat parts [[sim:ms=40]]';
      const content = [
        { type: 'text', text: chat },
        { type: 'image_url', image_url: { url: dataUrl(asTest[0]!) } },
        ...asTest.slice(1).map((f) => ({ type: 'file', file: { filename: f.filename, file_data: dataUrl(f) } })),
      ];
      const byChat = await e.api('POST', '/v1/chat/completions', { body: { model: `service/${provider}`, messages: [{ role: 'user', content }] } });
      expect(byChat.status, JSON.stringify(byChat.body)).toBe(200);
      // A chat image sent without a name is named for its place and type (image-1.png).
      const chatFiles = [{ ...files[0]!, filename: 'image-1.png' }, ...files.slice(1)];
      expect(byChat.body.choices[0].message.content).toBe(
        simulatedAnswer(name, provider, chat, 1, chatFiles.map((f) => ({ name: f.filename, bytes: f.bytes, sha256: f.sha256 }))),
      );

      // What the site received, send by send: every file, in order, once.
      const sends = e.sim.log.sends.filter((s) => [json, form, chat].includes(s.prompt));
      expect(sends.map((s) => s.files!.map(attachmentLine))).toEqual([files.map(line), files.map(line), chatFiles.map(line)]);
    }, 90_000);

    if (!FAILURES_ON.has(provider)) return;

    inOrder('a site check names the control files go in by', async ({ expect }) => {
      const check = await new RuntimeControl(e.runtime).checkSite(e.browserAgents[0]!.id, { send: false });
      const via = check.roles.find((r) => r.role.startsWith('attachments.'));
      // ChatGPT's default layout is the app-shell build, whose input has no id (the 2026-02 capture): the pack's second cue.
      const [role, key, index, kind] = provider === 'gemini' ? (['attachments.opener', 'attachOpener', 0, 'aria'] as const) : (['attachments.fileInput', 'fileInput', 1, 'structure'] as const);
      expect(via).toEqual({ role, status: 'found', cue: { index, kind, css: e.site.page[key]![index]!.css } });
      expect(check.ok).toBe(true);
    }, 60_000);

    inOrder('a file the page refuses fails the job ATTACHMENT_FAILED naming it, with nothing sent', async ({ expect }) => {
      const broken = file('broken[[sim:upload-fail]].txt', 'text/plain', Buffer.from('never kept'));
      const sends = e.sim.log.sends.length;
      const { job } = await submit('Refused [[sim:ms=40]]', [broken]);
      const done = await e.driver.ended(job.id, 45_000);
      expect(done).toMatchObject({ status: 'failed', error_code: 'ATTACHMENT_FAILED' });
      expect(done.error_message).toContain(`${name} refused ${broken.filename}: "${FILE_RULES[provider].words.failed(broken.filename)}"`);
      // Final: the page would refuse the same file again.
      expect((await e.driver.attempts(job.id)).length).toBe(1);
      expect(e.sim.log.sends.length).toBe(sends);
    }, 60_000);

    inOrder('a cancel while a file uploads cancels the job, with nothing sent', async ({ expect }) => {
      const slow = file('slow[[sim:upload-ms=30000]].txt', 'text/plain', Buffer.from('slow'));
      const sends = e.sim.log.sends.length;
      const uploads = e.sim.log.uploads.length;
      const { job } = await submit('Cancelled [[sim:ms=40]]', [slow]);
      await until(() => e.sim.log.uploads.length > uploads, 20_000, 'the upload to start');
      await e.service.completions.cancel(job.id, EVERY_ACCOUNT);
      const done = await e.driver.ended(job.id, 10_000);
      expect(done.status).toBe('cancelled');
      // The agent is free again, and sent nothing.
      await until(async () => !(await e.driver.isRunningOn(e.browserAgents[0]!.id)), 20_000, 'the agent to be free');
      expect(e.sim.log.sends.length).toBe(sends);
    }, 60_000);
  });
}
