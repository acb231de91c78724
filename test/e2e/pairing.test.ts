/**
 * "Add account" from the dashboard, end to end: `chatbridge serve --simulate` as a person
 * runs it, its dashboard in real headless Chromium, and the login done in the new agent's
 * page as the dashboard shows it: clicks on the picture and typed keys travel to the
 * agent's own browser, which logs in to the simulated site. Then the new agent runs a job,
 * and is removed.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { CLI, listening, simulationReady, trackProcesses, type Running } from '../support/processes.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

const procs = trackProcesses('chatbridge-pairing-');
let browser: Browser;

beforeAll(async () => {
  browser = await takeTestBrowser();
});
afterAll(async () => giveBackTestBrowser(browser));

/** `serve --simulate` with one Claude agent, once it printed its API key (agents ready). */
async function serveSimulated(): Promise<{ server: Running; dashboard: string; apiKey: string; chatgptSite: string }> {
  const dataDir = procs.tempDir();
  const server = await listening(procs.launch([CLI, 'serve', '--simulate-agents', 'claude=1', '--port', '0', '--data-dir', dataDir]), 30_000);
  const apiKey = await simulationReady(server, 60_000);
  // serve prints the link only on a terminal: `chatbridge dashboard` gives it.
  const link = procs.launch([CLI, 'dashboard', '--data-dir', dataDir]);
  await link.closed;
  return {
    server,
    dashboard: /^dashboard: (\S+)$/m.exec(link.out.stdout)![1]!,
    apiKey,
    chatgptSite: /chatgpt (http:\/\/\S+?),/.exec(server.out.stdout)![1]!,
  };
}

/**
 * Where the login form's fields are in the agent's page: the same simulated login page in
 * a page of the agents' size. The agent's page is 1280 CSS pixels wide, like this one.
 */
async function loginLayout(siteUrl: string): Promise<Record<'email' | 'password' | 'submit', { x: number; y: number }>> {
  const probe = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await probe.goto(new URL(SIM_SITES.chatgpt.paths.login, siteUrl).href);
  const centre = async (selector: string) => {
    const box = (await probe.locator(selector).boundingBox())!;
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  const layout = { email: await centre('input[name="email"]'), password: await centre('input[name="password"]'), submit: await centre('[data-testid="login-submit"]') };
  await probe.close();
  return layout;
}

/** Clicks the dashboard's picture of the agent's page where the page has `point`. */
async function clickInPicture(page: Page, point: { x: number; y: number }): Promise<void> {
  const picture = page.getByRole('application', { name: /page/ }).locator('img');
  const box = (await picture.boundingBox())!;
  const frameWidth = 1280;
  const scale = box.width / frameWidth;
  await page.mouse.click(box.x + point.x * scale, box.y + point.y * scale);
}

describe('pairing from the dashboard', () => {
  it('adds a ChatGPT account, logs in through its page shown in the dashboard, runs a job on it, and removes it', async () => {
    const { server, dashboard, apiKey, chatgptSite } = await serveSimulated();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(dashboard);
    await page.locator('.connection-live').waitFor();

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Add account' }).click();
    await page.getByLabel('ChatGPT').check();
    await page.getByRole('button', { name: 'Open the login page' }).click();

    await page.getByRole('heading', { name: 'Log in to ChatGPT · ChatGPT 1' }).waitFor({ timeout: 20_000 });
    const picture = page.getByRole('application', { name: /page/ }).locator('img');
    await picture.waitFor({ timeout: 10_000 });
    const layout = await loginLayout(chatgptSite);

    await clickInPicture(page, layout.email);
    await page.keyboard.type('me@example.test');
    await clickInPicture(page, layout.password);
    await page.keyboard.type('my password');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'ChatGPT 1 is ready' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Done' }).click();
    const card = page.getByRole('article', { name: 'ChatGPT 1' });
    await expect.poll(() => card.locator('.badge').textContent(), { timeout: 10_000 }).toBe('idle');

    // The new agent is a real one: a ChatGPT job runs on it.
    const job = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Hello from the new account', provider: 'chatgpt' }),
    });
    const body = (await job.json()) as { status: string; agent_name: string; response: string };
    expect(job.status).toBe(200);
    expect(body.agent_name).toBe('ChatGPT 1');
    expect(body.response).toBe(simulatedAnswer('ChatGPT', 'chatgpt', 'Hello from the new account', 1));

    await card.getByRole('button', { name: 'Remove' }).click();
    await card.getByRole('button', { name: 'Remove it' }).click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    const status = (await (await fetch(`${server.url}/v1/status`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as {
      providers: Record<string, { agents_total: number }>;
    };
    expect(status.providers.chatgpt!.agents_total).toBe(0);
    expect(status.providers.claude!.agents_total).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
    // Stopped as a person would, so its browsers close before the data dir is removed.
    server.child.kill('SIGTERM');
    expect((await server.closed).code).toBe(0);
  }, 120_000);
});
