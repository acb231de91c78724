/**
 * The dashboard in real headless Chromium against the real service (scripted agents),
 * served as `chatbridge serve` serves it: built files, strict CSP, admin token in the link.
 * Pairing an account through a simulated login page is in pairing.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser } from '../../agents/browser/find-browser.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

let browser: Browser;
let t: TestService | undefined;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findBrowser() });
});
afterAll(async () => browser?.close());
afterEach(async () => {
  await page?.close();
  await t?.stop();
  t = undefined;
  expect(pageErrors).toEqual([]);
});

/** A service with these agents and the dashboard open in a fresh tab through its link. */
async function open(agents: NonNullable<Parameters<typeof startTestService>[0]>['agents'] = { claude: 1 }): Promise<{ t: TestService; token: string }> {
  t = await startTestService({ agents });
  const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pageErrors.length = 0;
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${t.url}/#token=${token}`);
  await page.locator('.connection-live').waitFor();
  return { t, token };
}

/** Room for a machine busy with the other browser tests. */
const SLOW = { timeout: 10_000 };
const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name });

describe('dashboard in a browser', () => {
  it('takes the token from the link, hides it, and updates the Overview live while a job runs', async () => {
    const { t } = await open({ claude: 1 });
    expect(page.url()).toBe(`${t.url}/`);
    const ready = page.locator('.tile', { hasText: 'Agents ready' });
    await expect.poll(() => ready.locator('.tile-value').textContent(), SLOW).toBe('1 of 1');
    await page.getByText('No job is running').waitFor();

    const running = t.api('POST', '/v1/completions', { body: { prompt: 'Slow answer please [[ms=2000]]' } });
    await page.getByRole('link', { name: /Slow answer please/ }).waitFor();
    await expect.poll(() => ready.locator('.tile-value').textContent(), SLOW).toBe('0 of 1');
    expect((await running).status).toBe(200);
    await page.getByText('No job is running').waitFor();
    await expect.poll(() => page.locator('article', { hasText: 'Claude' }).textContent(), SLOW).toContain('1 this hour');

    // The token stays for this tab only: a reload keeps working, a new tab asks for the link.
    await page.reload();
    await page.locator('.connection-live').waitFor();
    const other = await browser.newPage();
    await other.goto(`${t.url}/`);
    await other.getByRole('heading', { name: 'Open the dashboard with its link' }).waitFor();
    await other.close();
  });

  it('changes a cap on the Caps page, and GET /v1/status follows', async () => {
    const { t } = await open({ chatgpt: 1 });
    await nav('Caps and rotation').click();
    const overall = page.locator('form', { has: page.getByLabel('All agents together') });
    await overall.getByLabel('All agents together').fill('7');
    await overall.getByRole('button', { name: 'Save' }).click();
    const chatgpt = page.locator('form', { has: page.getByLabel('ChatGPT', { exact: true }) });
    await chatgpt.getByLabel('ChatGPT', { exact: true }).fill('3');
    await chatgpt.getByLabel('ChatGPT', { exact: true }).press('Enter');
    await page.getByLabel(/Least used/).check();
    await until(async () => {
      const status = (await t.api('GET', '/v1/status')).body;
      return status.global.rate_limit_per_hour === 7 && status.providers.chatgpt.rate_limit_per_hour === 3 && status.rotation === 'least_used';
    }, SLOW.timeout);
  });

  it('cancels a job from the Jobs page while its caller waits, and the caller gets 499', async () => {
    const { t } = await open({ qwen: 1 });
    const waiting = t.api('POST', '/v1/completions', { body: { prompt: 'Never finishes [[hang]]' } });
    await nav('Jobs').click();
    await page.getByRole('link', { name: /Never finishes/ }).click();
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.getByRole('button', { name: 'Cancel it' }).click();
    expect((await waiting).status).toBe(499);
    await page.locator('.detail-head').getByText('cancelled').waitFor();
  });

  it('creates an API key that works against /v1/status at once', async () => {
    const { t } = await open({});
    await nav('API keys').click();
    await page.getByLabel('Name').fill('from the dashboard');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!;
    expect(secret).toMatch(/^cb_/);
    expect((await t.api('GET', '/v1/status', { key: secret })).status).toBe(200);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.locator('tr', { hasText: 'from the dashboard' }).textContent(), SLOW).toMatch(/from the dashboard/);
    expect(await page.content()).not.toContain(secret);
  });

  it('fits a 420 px wide window: no page scrolls sideways (wide tables scroll in their own box)', async () => {
    const { t } = await open({ claude: 1, chatgpt: 1 });
    await t.api('POST', '/v1/completions', { body: { prompt: 'A job for the lists [[ms=10]]' } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'Waits for gemini', provider: 'gemini', wait: false, callback_url: 'https://127.0.0.1:9/h' } });
    await page.setViewportSize({ width: 420, height: 800 });
    const [job] = await t.service.store.recent(1);
    const pages: [string, string | RegExp][] = [
      ['overview', 'Overview'],
      ['agents', 'Agents'],
      ['agents/add', 'Add an account'],
      ['caps', 'Caps and rotation'],
      ['keys', 'API keys'],
      ['webhooks', 'Webhooks'],
      ['jobs', /A job for the lists/],
      [`jobs/${job!.id}`, /Waiting in the queue/],
      ['usage', 'By agent'],
      ['settings', 'Logs'],
    ];
    for (const [route, shows] of pages) {
      await page.evaluate((r) => (window.location.hash = `#/${r}`), route);
      await page.getByText(shows).first().waitFor(SLOW);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, route).toBe(0);
    }
  });
});
