/**
 * A job's files in real Chromium, put through each simulated site's own file control by the
 * flow every agent runs (attach-files.ts), on every layout of every site: an image, a UTF-8
 * text with non-ASCII in its name and body, and a 300 KB random binary reach the answer byte
 * for byte (the simulated answer's `- attachment:` lines). On each site's default layout, an
 * upload the page refuses, one that never finishes within the (shortened) upload wait, and a
 * cancel while a file uploads each end the attempt with nothing typed or sent: the site's log
 * shows the upload and no send. The same on a page whose test ids and classes a release renamed
 * and hashed at once. One browser serves the whole file; each test a page of its own.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { FLOW_LIMITS, flowContext, type FlowLimits } from '../../agents/providers/flow-context.js';
import { openNewChat, runTurn, waitUntilReady } from '../../agents/providers/flow.js';
import { atBaseUrl, PROVIDER_SITES } from '../../agents/providers/index.js';
import { pageWorld } from '../../agents/providers/page-world.js';
import { attachmentLine, simulatedAnswer } from '../../agents/simulator/answer.js';
import { FILE_RULES } from '../../agents/simulator/file-rules.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { SimLook } from '../../agents/simulator/site-server.js';
import { AgentFailure, type AgentResult, type AgentTask } from '../../main/core/agent.js';
import type { AttachmentFile } from '../../main/core/attachments.js';
import { PROVIDERS, type Provider } from '../../main/core/providers.js';
import { describeBeside } from '../support/beside.js';
import { openSimPage } from '../support/sim-page.js';
import { until } from '../support/until.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

let browser: Browser;
let dir: string;
beforeAll(async () => {
  browser = await takeTestBrowser();
  dir = mkdtempSync(join(tmpdir(), 'cb-attach-e2e-'));
}, 30_000);
afterAll(async () => {
  await giveBackTestBrowser(browser);
  rmSync(dir, { recursive: true, force: true });
});

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let made = 0;
/** A job's file as the queue hands it to an agent: written to a folder of its own, its basename its name. */
function file(filename: string, media_type: string, data: Buffer): AttachmentFile {
  const folder = join(dir, String(++made));
  const path = join(folder, filename);
  mkdirSync(folder);
  writeFileSync(path, data);
  return { filename, media_type, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex'), path };
}

/** The three kinds every site must take; the binary's ending is one every site's list has. */
const threeFiles = () => [
  file('screenshot.png', 'image/png', PNG),
  file('заметки-ünï.txt', 'text/plain', Buffer.from('Grüße — naïve ✓ 日本語 🚀\nzweite Zeile\n', 'utf8')),
  file('noise.pdf', 'application/pdf', randomBytes(300 * 1024)),
];

const received = (files: readonly AttachmentFile[]) => files.map((f) => ({ name: f.filename, bytes: f.bytes, sha256: f.sha256 }));

/** A simulated account for the test: its site in `look`, a signed-in page, and one job run as BrowserAgent runs it. */
async function account(context: TestContext, provider: Provider, look: SimLook = {}) {
  const opened = await openSimPage(browser, provider, { look, viewport: { width: 1280, height: 900 } });
  context.onTestFinished(() => opened.close());
  const { sim, page } = opened;
  const site = atBaseUrl(PROVIDER_SITES[provider], sim.url);
  return {
    sim,
    page,
    site,
    async run(task: Pick<AgentTask, 'prompt' | 'attachments'>, limits: FlowLimits = FLOW_LIMITS, signal: AbortSignal = AbortSignal.timeout(45_000), conversation: string | null = null): Promise<AgentResult> {
      if (conversation) await page.goto(conversation);
      else await openNewChat(flowContext(page, site));
      await waitUntilReady(flowContext(page, site, { limits }));
      return runTurn(flowContext(page, site, { limits, signal }), { ...task, variant: null, label: 'attachments-test' });
    },
    /** What the composer holds now: nothing, after an attempt that failed before typing. */
    composerText: () => pageWorld(page).run((h, json) => ((h.find(h.pack(json).composer) as HTMLElement | null)?.innerText ?? (h.find(h.pack(json).composer) as HTMLTextAreaElement | null)?.value ?? '').trim(), flowContext(page, site).pack),
  };
}

/** The failure an attempt ends with (a test failure when it answered). */
async function failure(attempt: Promise<AgentResult>): Promise<unknown> {
  return attempt.then(
    (result) => expect.fail(`it answered: ${result.text.slice(0, 80)}`),
    (error: unknown) => error,
  );
}

describeBeside('a job’s files reach the page, byte for byte, on every layout', () => {
  for (const provider of PROVIDERS) {
    for (const layout of SIM_SITES[provider].layouts) {
      it(`${SIM_SITES[provider].name} (${layout}): an image, a non-ASCII text and a 300 KB binary`, async (context) => {
        const { expect } = context;
        const a = await account(context, provider, { layout });
        const files = threeFiles();
        const prompt = `Read these files — ${layout} [[sim:ms=40]]`;
        const result = await a.run({ prompt, attachments: files });
        expect(result.text).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 1, received(files)));
        expect(a.sim.log.sends).toHaveLength(1);
        expect(a.sim.log.sends[0]!.prompt).toBe(prompt);
        expect(a.sim.log.sends[0]!.files!.map(attachmentLine)).toEqual(files.map((f) => attachmentLine({ name: f.filename, bytes: f.bytes, sha256: f.sha256 })));
      }, 60_000);
    }
  }
});

describeBeside('a job’s files on a rebuilt page (test ids renamed and classes hashed at once)', () => {
  for (const provider of PROVIDERS) {
    it(`${SIM_SITES[provider].name}: the files go in and a refusal is still read`, async (context) => {
      const { expect } = context;
      const a = await account(context, provider, { drift: ['testids', 'classes'] });
      const files = threeFiles();
      const prompt = 'Rebuilt page [[sim:ms=40]]';
      const result = await a.run({ prompt, attachments: files });
      expect(result.text).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 1, received(files)));
      const broken = file('broken[[sim:upload-fail]].txt', 'text/plain', Buffer.from('never kept'));
      const refused = await failure(a.run({ prompt: 'Refused [[sim:ms=40]]', attachments: [broken] }));
      expect((refused as AgentFailure).message).toBe(`${SIM_SITES[provider].name} refused ${broken.filename}: "${FILE_RULES[provider].words.failed(broken.filename)}"; nothing was sent.`);
      expect(a.sim.log.sends).toHaveLength(1);
    }, 60_000);
  }
});

describeBeside('a file the page refuses, one that never finishes, a cancel while it uploads: nothing typed or sent', () => {
  for (const provider of PROVIDERS) {
    it(`${SIM_SITES[provider].name}`, async (context) => {
      const { expect } = context;
      const a = await account(context, provider);
      const name = SIM_SITES[provider].name;

      // Refused: the site's own words, naming the file.
      const broken = file('broken[[sim:upload-fail]].txt', 'text/plain', Buffer.from('never kept'));
      const refused = await failure(a.run({ prompt: 'Refused [[sim:ms=40]]', attachments: [file('fine.txt', 'text/plain', Buffer.from('fine')), broken] }));
      expect(refused).toBeInstanceOf(AgentFailure);
      expect((refused as AgentFailure).kind).toBe('attachment_failed');
      expect((refused as AgentFailure).message).toBe(`${name} refused ${broken.filename}: "${FILE_RULES[provider].words.failed(broken.filename)}"; nothing was sent.`);
      expect(await a.composerText()).toBe('');
      expect(a.sim.log.uploads.find((u) => u.name === broken.filename)?.state).toBe('refused');

      // Never finishes within the upload wait (60 s in the product, 1.5 s here).
      const slow = file('slow[[sim:upload-ms=30000]].txt', 'text/plain', Buffer.from('slow'));
      const stuck = await failure(a.run({ prompt: 'Stuck [[sim:ms=40]]', attachments: [slow] }, { ...FLOW_LIMITS, uploadMs: 1_500 }));
      expect((stuck as AgentFailure).kind).toBe('attachment_failed');
      expect((stuck as AgentFailure).message).toBe(`${name} was still uploading "${slow.filename}" after 1.5 s; nothing was sent.`);
      expect(await a.composerText()).toBe('');

      // Cancelled while the file uploads: the attempt ends on the cancel's reason, as any cancel does.
      const cancel = new AbortController();
      const slower = file('slower[[sim:upload-ms=30000]].txt', 'text/plain', Buffer.from('slower'));
      const uploads = a.sim.log.uploads.length;
      const attempt = failure(a.run({ prompt: 'Cancelled [[sim:ms=40]]', attachments: [slower] }, FLOW_LIMITS, cancel.signal));
      await until(() => a.sim.log.uploads.length > uploads, 10_000, 'the upload to start');
      cancel.abort('cancelled');
      expect(await attempt).toBe('cancelled');
      expect(await a.composerText()).toBe('');

      expect(a.sim.log.sends).toEqual([]);
    }, 60_000);
  }
});

describeBeside('a paste card beside the job’s files', () => {
  it('ChatGPT: the long prompt the composer made a file is removed and pasted again as text; the job’s file stays attached and goes', async (context) => {
    const { expect } = context;
    const a = await account(context, 'chatgpt', { pasteToFileAt: 2_000 });
    const files = [file('Pasted markdown.md', 'text/markdown', Buffer.from('# the caller’s own file, named as a paste card is\n'))];
    const prompt = `Long one [[sim:ms=40]]\n\n${'line\twith a tab and  two spaces\n'.repeat(120)}end`;
    const result = await a.run({ prompt, attachments: files });
    expect(a.sim.log.sends).toHaveLength(1);
    expect(a.sim.log.sends[0]!.prompt).toBe(prompt);
    expect(a.sim.log.sends[0]!.attachment).toBeUndefined();
    expect(a.sim.log.sends[0]!.files!.map(attachmentLine)).toEqual(received(files).map(attachmentLine));
    expect(result.text).toBe(simulatedAnswer('ChatGPT', 'chatgpt', prompt, 1, received(files)));
  }, 60_000);
});

describeBeside('files in a conversation continued', () => {
  for (const provider of ['claude', 'gemini'] as const) {
    it(`${SIM_SITES[provider].name}: a second turn takes its own files, the first turn's not sent again`, async (context) => {
      const { expect } = context;
      const a = await account(context, provider);
      const first = [file('first.txt', 'text/plain', Buffer.from('first'))];
      const answered = await a.run({ prompt: 'First [[sim:ms=40]]', attachments: first });
      const second = [file('second.csv', 'text/csv', Buffer.from('a;b\nä;ö\n'))];
      const prompt = 'Second [[sim:ms=40]]';
      const result = await a.run({ prompt, attachments: second }, FLOW_LIMITS, AbortSignal.timeout(45_000), answered.conversation);
      expect(result.conversation).toBe(answered.conversation);
      expect(result.text).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 2, received(second)));
      expect(a.sim.log.sends.map((s) => s.files!.map((f) => f.name))).toEqual([['first.txt'], ['second.csv']]);
    }, 60_000);
  }
});

describeBeside('the page’s own limits', () => {
  for (const provider of ['claude', 'deepseek'] as const) {
    it(`${SIM_SITES[provider].name}: one file too many, and one too large, each refused in the page's words naming it`, async (context) => {
      const { expect } = context;
      // Lowered, so no test needs a large file: 2 a message, 100 KiB a file.
      const limits = { perMessage: 2, maxBytes: 100 * 1024 };
      const a = await account(context, provider, { fileLimits: limits });
      const words = FILE_RULES[provider].words;
      const three = ['one.txt', 'two.txt', 'three.txt'].map((n) => file(n, 'text/plain', Buffer.from(n)));
      const tooMany = await failure(a.run({ prompt: 'Three [[sim:ms=40]]', attachments: three }));
      expect((tooMany as AgentFailure).message).toBe(`${SIM_SITES[provider].name} refused three.txt: "${words.tooMany('three.txt', 2)}"; nothing was sent.`);
      const large = file('large.pdf', 'application/pdf', randomBytes(100 * 1024 + 1));
      const tooLarge = await failure(a.run({ prompt: 'Large [[sim:ms=40]]', attachments: [large] }));
      expect((tooLarge as AgentFailure).message).toBe(`${SIM_SITES[provider].name} refused large.pdf: "${words.tooLarge('large.pdf', limits.maxBytes)}"; nothing was sent.`);
      expect(a.sim.log.sends).toEqual([]);
    }, 60_000);
  }
});
