/**
 * The Usage page in real headless Chromium against the real service, with a day of history
 * written through a job store on the data dir (a connection of the test's own, which skips
 * the fsync of each move): the charts are drawn (bars, failure codes, the p50/p95
 * lines), the filters and ranges ask the server again, and the screenshots are kept in
 * test-results/usage/ to be looked at.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { startTestService, type TestService } from '../support/harness.js';
import { seedFinishedJobs } from '../support/seed-history.js';
import { withDataDirDb } from '../support/data-dir-db.js';
import { SqliteJobStore } from '../../main/storage/sqlite/job-store.js';
import { SqliteWebhookOutbox } from '../../main/storage/sqlite/outbox.js';
import { DAY_MS } from '../../main/core/timestamps.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

const SHOTS = join(PACKAGE_ROOT, 'test-results/usage');
const SLOW = { timeout: 10_000 };

let browser: Browser;
let t: TestService;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await takeTestBrowser();
  t = await startTestService({ agents: { chatgpt: 2, claude: 1, gemini: 1 } });
  const agents = t.driver.agents.list().map((a) => ({ id: a.id, provider: a.provider }));
  const other = (await t.driver.keys.create({ name: 'nightly-report', scopes: ['completions:write'], expiresAt: null })).key.id;
  const keys = [...t.driver.keys.list().map((k) => k.id), other, 'admin'];
  const now = Date.now();
  const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
  // Paused while the history is written beside it: the service wakes on each external change
  // and its agents would take a seeded job in the moment between its submission and its move.
  const paused = (on: boolean) => t.api('PATCH', '/admin/v1/settings', { key: token, body: { paused: on } });
  expect((await paused(true)).status).toBe(200);
  // The 24-hour range begins on the hour 23 hours before the current one.
  await withDataDirDb(t.dataDir, async (db) => {
    const store = new SqliteJobStore(db, new SqliteWebhookOutbox(db));
    await seedFinishedJobs(store, db, { count: 1_500, from: now - 23 * 3_600_000, to: now, agents, keys });
    await seedFinishedJobs(store, db, { count: 3_000, from: now - 60 * DAY_MS, to: now - DAY_MS, agents, keys, seed: 2 });
    await store.close();
  });
  expect((await paused(false)).status).toBe(200);
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${t.url}/#token=${token}`);
  await page.locator('.connection-live').waitFor();
});
afterAll(async () => {
  await page?.close();
  await giveBackTestBrowser(browser);
  await t?.stop();
});

const chart = (title: string) => page.locator('section', { has: page.getByRole('heading', { name: title }) }).locator('figure');

describe('Usage page in a browser', () => {
  it('draws jobs per hour by provider, failures by code and time to answer, and filters by key, agent and range', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Usage' }).click();
    const jobsTile = page.locator('.tile', { hasText: 'Jobs' }).first().locator('.tile-value');
    await expect.poll(() => jobsTile.textContent(), SLOW).toBe('1500');

    const perHour = chart('Jobs per hour, by provider');
    // Three providers' stacks (and jobs that expired before reaching one) over 24 hours.
    await expect.poll(() => perHour.locator('.recharts-bar-rectangle').count(), SLOW).toBeGreaterThan(60);
    expect(await perHour.locator('.recharts-legend-item').allTextContents()).toEqual(['ChatGPT', 'Claude', 'Gemini', 'never ran']);
    const failures = chart('Failures per hour, by code');
    expect(await failures.locator('.recharts-legend-item').allTextContents()).toEqual(
      expect.arrayContaining(['PROVIDER_ERROR', 'PROMPT_REJECTED', 'JOB_TIMEOUT']),
    );
    const answer = chart('Time to answer (from sending to the answer)');
    expect(await answer.locator('.recharts-line-curve').count()).toBe(2);
    // Every chart spans the content's width, not the fallback size.
    const box = await perHour.boundingBox();
    expect(box!.width).toBeGreaterThan(900);
    await page.screenshot({ path: join(SHOTS, 'usage-24h.png'), fullPage: true });

    const reportKey = t.driver.keys.list().find((k) => k.name === 'nightly-report')!;
    await page.getByRole('combobox', { name: 'Key' }).selectOption(reportKey.id);
    await expect.poll(async () => Number(await jobsTile.textContent()), SLOW).toBeLessThan(1_000);
    const byKey = page.locator('section', { has: page.getByRole('heading', { name: 'By key' }) });
    expect(await byKey.locator('tbody tr').allTextContents()).toEqual([expect.stringMatching(/^nightly-report\d+/)]);
    const claude = t.driver.agents.list().find((a) => a.provider === 'claude')!;
    await page.getByRole('combobox', { name: 'Agent' }).selectOption(claude.id);
    await expect.poll(() => perHour.locator('.recharts-legend-item').allTextContents(), SLOW).toEqual(['Claude']);
    await page.screenshot({ path: join(SHOTS, 'usage-24h-filtered.png'), fullPage: true });

    await page.getByRole('combobox', { name: 'Key' }).selectOption('');
    await page.getByRole('combobox', { name: 'Agent' }).selectOption('');
    await page.getByRole('button', { name: 'Last 90 days' }).click();
    await page.getByRole('heading', { name: 'Jobs per day, by provider' }).waitFor(SLOW);
    await expect.poll(() => jobsTile.textContent(), SLOW).toBe('4500');
    await page.screenshot({ path: join(SHOTS, 'usage-90d.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
