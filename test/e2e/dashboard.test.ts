/**
 * The dashboard in real headless Chromium against the real service (scripted agents),
 * served as `chatbridge serve` serves it: built files, strict CSP, admin token in the link.
 * Pairing an account through a simulated login page is in pairing.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundleName, DIAGNOSTIC_FILES, diagnosticsRoot, type DiagnosticManifest } from '../../main/core/diagnostics.js';
import { CSP as DESKTOP_CSP } from '../../main/electron/security.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

let browser: Browser;
let t: TestService | undefined;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await takeTestBrowser();
});
afterAll(async () => giveBackTestBrowser(browser));
afterEach(async () => {
  await page?.close();
  await t?.stop();
  t = undefined;
  expect(pageErrors).toEqual([]);
});

/**
 * A service with these agents and the dashboard open in a fresh tab through its link;
 * `csp` replaces the page's Content-Security-Policy (the desktop app's own, say).
 */
async function open(agents: NonNullable<Parameters<typeof startTestService>[0]>['agents'] = { claude: 1 }, csp?: string): Promise<{ t: TestService; token: string }> {
  t = await startTestService({ agents });
  const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pageErrors.length = 0;
  page.on('pageerror', (e) => pageErrors.push(e.message));
  if (csp) {
    await page.route(
      (url) => url.pathname === '/',
      async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': csp } });
      },
    );
  }
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

    // The job runs until it is cancelled: the two looks at it may take seconds on a busy machine.
    const running = await t.api('POST', '/v1/completions', { body: { prompt: 'Slow answer please [[hang]]', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    expect(running.status).toBe(202);
    await page.getByRole('link', { name: /Slow answer please/ }).waitFor();
    await expect.poll(() => ready.locator('.tile-value').textContent(), SLOW).toBe('0 of 1');
    expect((await t.api('DELETE', `/v1/completions/${running.body.id}`)).status).toBe(200);
    await page.getByText('No job is running').waitFor(SLOW);
    await expect.poll(() => page.locator('article', { hasText: 'Claude' }).textContent(), SLOW).toContain('1 attempt this hour');

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

  it.each([
    ['served by chatbridge serve', undefined],
    ["of the desktop app's window", DESKTOP_CSP],
  ])("shows a failed attempt's screenshot under the CSP %s", async (_name, csp) => {
    const { t } = await open({ claude: 1 }, csp);
    const submitted = await t.api('POST', '/v1/completions', { body: { prompt: 'Fails on its page [[fail=provider_error]]', wait: false } });
    const id: string = submitted.body.id;
    await until(async () => (await t.api('GET', `/v1/completions/${id}`)).body.status === 'failed', SLOW.timeout);
    // The bundle an agent keeps (agents/runtime/diagnostics.ts), with a real PNG of a page.
    const shot = await browser.newPage({ viewport: { width: 320, height: 200 } });
    await shot.setContent('<p style="font: 24px sans-serif">Something went wrong.</p>');
    const png = await shot.screenshot();
    await shot.close();
    const name = bundleName(id, 1);
    const dir = join(diagnosticsRoot(t.dataDir), name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, DIAGNOSTIC_FILES.screenshot), png);
    const manifest: DiagnosticManifest = {
      job_id: id,
      attempt: 1,
      agent_id: t.agents[0]!.id,
      provider: 'claude',
      at: Date.now(),
      failure: { kind: 'provider_error', message: 'Something went wrong.' },
      page_url: 'https://claude.ai/new',
      pack: { version: 1, checked: '2026-10-09', override: null },
      cues: {},
      files: [DIAGNOSTIC_FILES.screenshot, DIAGNOSTIC_FILES.manifest],
    };
    writeFileSync(join(dir, DIAGNOSTIC_FILES.manifest), JSON.stringify(manifest));

    await page.evaluate((job) => (window.location.hash = `#/jobs/${job}`), id);
    // Folded to its failure's line until opened.
    const bundle = page.getByLabel('Diagnostics of attempt 1');
    await bundle.locator('summary').click(SLOW);
    const img = bundle.getByRole('img');
    await img.waitFor(SLOW);
    // A blocked or broken image never decodes: its natural width stays 0.
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), SLOW).toBe(320);
  });

  it("draws a first day's one time-to-answer point as dots, with the charts loaded when the Usage page opens", async () => {
    const { t } = await open({ claude: 1 });
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'A first answer [[ms=10]]' } })).status).toBe(200);
    await nav('Usage').click();
    const answer = page.locator('section', { has: page.getByRole('heading', { name: 'Time to answer (from sending to the answer)' }) }).locator('figure');
    // A line through one point draws nothing: the median's and the 95th percentile's dots show it.
    await expect.poll(() => answer.locator('.recharts-line-dot').count(), SLOW).toBe(2);
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

  it("shows every field's placeholder whole (\"10 (default)\", the proxy's forms), at 1280 and 420 px wide", async () => {
    await open({ claude: 1 });
    for (const width of [1280, 420]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [route, field] of [
        ['agents', 'Pause'],
        ['agents/add', 'Name (optional)'],
        ['caps', 'All agents together'],
        ['keys', 'Name'],
        ['settings', 'Every agent'],
      ] as const) {
        await page.evaluate((r) => (window.location.hash = `#/${r}`), route);
        await page.getByLabel(field, { exact: true }).first().waitFor(SLOW);
        // The placeholder's width in the field's own font, against the room inside the field.
        const cut = await page.evaluate(() => {
          const context = document.createElement('canvas').getContext('2d')!;
          return [...document.querySelectorAll('input')].flatMap((input) => {
            if (!input.placeholder) return [];
            const style = getComputedStyle(input);
            context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return context.measureText(input.placeholder).width > room ? [`"${input.placeholder}" in ${Math.round(room)} px`] : [];
          });
        });
        expect(cut, `#/${route} at ${width} px`).toEqual([]);
      }
    }
  });

  it("runs the sidebar's dark column down the whole of a long page", async () => {
    await open({ claude: 3, chatgpt: 3 });
    await nav('Agents').click();
    await page.getByRole('article', { name: 'chatgpt-3' }).waitFor(SLOW);
    const { sidebar, pageHeight, viewport } = await page.evaluate(() => ({
      sidebar: document.querySelector('nav.sidebar')!.getBoundingClientRect().height,
      pageHeight: document.documentElement.scrollHeight,
      viewport: window.innerHeight,
    }));
    expect(pageHeight).toBeGreaterThan(viewport);
    expect(Math.round(sidebar)).toBe(pageHeight);
    // Its links stay in view at the bottom of the page.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(() => nav('Usage').evaluate((a) => a.getBoundingClientRect().top), SLOW).toBeGreaterThan(0);
  });

  it('fits a 420 px wide window: no page scrolls sideways (wide tables scroll in their own box)', async () => {
    const { t } = await open({ claude: 1, chatgpt: 1 });
    await t.api('POST', '/v1/completions', { body: { prompt: 'A job for the lists [[ms=10]]' } });
    await t.api('POST', '/v1/completions', { body: { prompt: 'Waits for gemini', provider: 'gemini', wait: false, callback_url: 'https://127.0.0.1:9/h' } });
    await page.setViewportSize({ width: 420, height: 800 });
    const [job] = await t.driver.recent(1);
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
