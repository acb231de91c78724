/**
 * Files in a prompt (issue 32): the time an upload adds to a job, per MiB, on a simulated
 * site. The flow every agent runs (one ChatGPT page in Chromium, the simulated site on this
 * machine) attaches one random file of each size, RUNS times, on a fresh chat: the time from
 * the files handed to the page to every chip shown finished (attach-files.ts `attachFiles`,
 * all an upload adds to a job: the prompt is typed after it, as without a file). The time
 * per MiB is the least-squares slope through the medians, the rest a cost per file. The
 * simulator streams each upload to a SHA-256; its floor of 150 ms a file is turned off
 * (`[[sim:upload-ms=0]]` in the names), and the flow looks every 150 ms (in the cost per file),
 * so the figure is the browser's, the page's and the flow's share of an upload, not a network's. Aim: under 250 ms per MiB, and a file of the contract's 20 MiB attached within
 * 5 s, a twelfth of the 60 s upload wait.
 *
 *   node dist/bench/uploads.js
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { findBrowser } from '../agents/browser/find-browser.js';
import { attachFiles } from '../agents/providers/attach-files.js';
import { flowContext } from '../agents/providers/flow-context.js';
import { openNewChat, waitUntilReady } from '../agents/providers/flow.js';
import { atBaseUrl, PROVIDER_SITES } from '../agents/providers/index.js';
import { SIM_SITES } from '../agents/simulator/site-config.js';
import { startSiteServer } from '../agents/simulator/site-server.js';
import type { AttachmentFile } from '../main/core/attachments.js';
import { ascending, heading, ms, num, percentile, printMachineLoad, printTable, removeDir, runMain, tempDataDir, verdict } from './support.js';

const MiB = 1024 * 1024;
const SIZES_MIB = [0.001, 1, 5, 10, 20];
const RUNS = 5;
const AIM_MS_PER_MIB = 250;

runMain(async () => {
  heading('Upload time per MiB, one ChatGPT page on the simulated site');
  await printMachineLoad();
  const dir = tempDataDir('uploads');
  const sim = await startSiteServer(SIM_SITES.chatgpt, {});
  const browser = await chromium.launch({ executablePath: findBrowser() });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([sim.session()]);
    const page = await context.newPage();
    const site = atBaseUrl(PROVIDER_SITES.chatgpt, sim.url);
    const files = new Map<number, AttachmentFile>();
    for (const size of SIZES_MIB) {
      const folder = join(dir, `${size}`);
      mkdirSync(folder, { recursive: true });
      const bytes = Math.round(size * MiB);
      const filename = `random-${bytes}[[sim:upload-ms=0]].pdf`;
      const path = join(folder, filename);
      writeFileSync(path, randomBytes(bytes));
      files.set(size, { filename, media_type: 'application/pdf', bytes, sha256: '', path });
    }
    /** One file attached on a fresh chat (never sent: the next fresh chat drops it): the time until its chip shows finished (ms). */
    const attach = async (file: AttachmentFile): Promise<number> => {
      await openNewChat(flowContext(page, site));
      await waitUntilReady(flowContext(page, site));
      const started = performance.now();
      await attachFiles(flowContext(page, site, { signal: AbortSignal.timeout(60_000) }), [file]);
      return performance.now() - started;
    };
    await attach(files.get(SIZES_MIB[0]!)!); // the page's first load and the helpers' first use are no upload's
    const added = [];
    for (const size of SIZES_MIB) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await attach(files.get(size)!));
      added.push({ size, ms: percentile(ascending(times), 50) });
    }
    // Least squares through (size, added): the time each further MiB adds.
    const meanX = added.reduce((s, a) => s + a.size, 0) / added.length;
    const meanY = added.reduce((s, a) => s + a.ms, 0) / added.length;
    const slope = added.reduce((s, a) => s + (a.size - meanX) * (a.ms - meanY), 0) / added.reduce((s, a) => s + (a.size - meanX) ** 2, 0);
    const fixed = meanY - slope * meanX;
    printTable([['one file of', `attached (median of ${RUNS})`], ...added.map((a) => [a.size < 1 ? `${num(a.size * 1024)} KiB` : `${a.size} MiB`, ms(a.ms)])]);
    printTable([
      ['figure', 'measured', 'aim', ''],
      ['per MiB uploaded', `${num(slope, 1)} ms`, `< ${AIM_MS_PER_MIB} ms`, verdict(slope < AIM_MS_PER_MIB)],
      ['per file, whatever its size', ms(fixed), '', ''],
      ['a 20 MiB file (the contract’s largest)', ms(fixed + 20 * slope), '< 5 000 ms', verdict(fixed + 20 * slope < 5_000)],
    ]);
  } finally {
    await browser.close();
    await sim.close();
    removeDir(dir);
  }
});
