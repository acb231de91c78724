/**
 * A job's files put through a simulated site by the flow every agent runs (attach-files.ts),
 * as BrowserAgent runs a job: for test/e2e/attachments.test.ts (each site's default page) and
 * test/e2e/layouts/attachments.test.ts (the other layouts, a rebuilt page). The test
 * process's browser serves the file, each test a page of its own; the files are written to a
 * folder of the file's own, removed when it ends.
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
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { SimLook } from '../../agents/simulator/site-server.js';
import type { AgentResult, AgentTask } from '../../main/core/agent.js';
import type { AttachmentFile } from '../../main/core/attachments.js';
import { PROVIDERS, type Provider } from '../../main/core/providers.js';
import { describeBeside } from './beside.js';
import { openSimPage } from './sim-page.js';
import { giveBackTestBrowser, takeTestBrowser } from './test-browser.js';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** What a test file uses: call once, at the top of the file. */
export function useAttachmentAccounts() {
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

  /**
   * The test every layout passes: an image, a non-ASCII text and a 300 KB binary reach the
   * answer byte for byte, on each site's default layout (attachments.test.ts) or its other ones (layouts/).
   */
  function filesReachThePage(layouts: 'default' | 'others'): void {
    describeBeside(`a job’s files reach the page, byte for byte, on ${layouts === 'default' ? 'its default layout' : 'the other layouts'}`, () => {
      for (const provider of PROVIDERS) {
        const all = SIM_SITES[provider].layouts;
        for (const layout of layouts === 'default' ? all.slice(0, 1) : all.slice(1)) {
          it(`${SIM_SITES[provider].name} (${layout}): an image, a non-ASCII text and a 300 KB binary`, async (context) => {
            const { expect } = context;
            const a = await account(context, provider, { layout });
            const files = threeFiles();
            const prompt = `Read these files — ${layout} [[sim:ms=40]]`;
            const result = await a.run({ prompt, attachments: files });
            expect(result.text).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 1, received(files)));
            expect(a.sim.log.sends).toHaveLength(1);
            expect(a.sim.log.sends[0]!.prompt).toBe(prompt);
            expect(a.sim.log.sends[0]!.files!.map(attachmentLine)).toEqual(received(files).map(attachmentLine));
          }, 60_000);
        }
      }
    });
  }

  return { file, threeFiles, account, filesReachThePage };
}

/** The files as the simulated site reports them received. */
export const received = (files: readonly AttachmentFile[]) => files.map((f) => ({ name: f.filename, bytes: f.bytes, sha256: f.sha256 }));

/** The failure an attempt ends with (a test failure when it answered). */
export async function failure(attempt: Promise<AgentResult>): Promise<unknown> {
  return attempt.then(
    (result) => expect.fail(`it answered: ${result.text.slice(0, 80)}`),
    (error: unknown) => error,
  );
}
