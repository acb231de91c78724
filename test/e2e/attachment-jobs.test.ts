/**
 * Jobs with files through the whole service (issue 32): submitted with their files through
 * the completions port (the API's three ways in end there), stored, written for the attempt,
 * put through a real browser agent's page (ChatGPT's hidden input; Gemini's upload menu and
 * the browser's file chooser), and answered with each file byte for byte. A file the page
 * refuses fails the job ATTACHMENT_FAILED naming it, and a cancel while a file uploads
 * cancels the job: neither sends anything (the site's log). One service and one browser
 * agent per site.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, afterAll } from 'vitest';
import { RuntimeControl } from '../../agents/runtime/runtime-control.js';
import { attachmentLine, simulatedAnswer } from '../../agents/simulator/answer.js';
import { FILE_RULES } from '../../agents/simulator/file-rules.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { NewAttachment } from '../../main/core/attachments.js';
import { EVERY_ACCOUNT } from '../../main/core/jobs.js';
import type { Provider } from '../../main/core/providers.js';
import { completionDefaults } from '../../main/contract/schemas.js';
import { describeBeside, inOrder } from '../support/beside.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { until } from '../support/until.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

function file(filename: string, media_type: string, data: Buffer): NewAttachment {
  return { filename, media_type, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex'), data };
}

const line = (f: NewAttachment) => attachmentLine({ name: f.filename, bytes: f.bytes, sha256: f.sha256 });

for (const provider of ['chatgpt', 'gemini'] as const satisfies readonly Provider[]) {
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

    inOrder('a site check names the control files go in by', async ({ expect }) => {
      const check = await new RuntimeControl(e.runtime).checkSite(e.browserAgents[0]!.id, { send: false });
      const via = check.roles.find((r) => r.role.startsWith('attachments.'));
      // ChatGPT's default layout is the app-shell build, whose input has no id (the 2026-02 capture): the pack's second cue.
      const [role, key, index, kind] = provider === 'gemini' ? (['attachments.opener', 'attachOpener', 0, 'aria'] as const) : (['attachments.fileInput', 'fileInput', 1, 'structure'] as const);
      expect(via).toEqual({ role, status: 'found', cue: { index, kind, css: e.site.page[key]![index]!.css } });
      expect(check.ok).toBe(true);
    }, 60_000);

    inOrder('an image, a non-ASCII text and a 300 KB binary reach the page and the answer byte for byte', async ({ expect }) => {
      const files = [
        file('screenshot.png', 'image/png', PNG),
        file('заметки-ünï.txt', 'text/plain', Buffer.from('Grüße — naïve ✓ 日本語 🚀\n', 'utf8')),
        file('noise.pdf', 'application/pdf', randomBytes(300 * 1024)),
      ];
      const prompt = 'Review these files [[sim:ms=40]]';
      const { job } = await submit(prompt, files);
      const done = await e.driver.ended(job.id, 45_000);
      expect(done.status, done.error_message ?? '').toBe('succeeded');
      expect(done.response).toBe(simulatedAnswer(name, provider, prompt, 1, files.map((f) => ({ name: f.filename, bytes: f.bytes, sha256: f.sha256 }))));
      const sends = e.sim.log.sends.filter((s) => s.prompt === prompt);
      expect(sends.map((s) => s.files!.map(attachmentLine))).toEqual([files.map(line)]);
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
