/**
 * The devices sharing one PostgreSQL, in real headless Chromium: three real instances
 * (dist/test/support/scripted-server.js --database), two with agents of their own, one
 * --no-api. The dashboard of the one without agents shows every device with its agents and
 * its address; the API there counts and uses the others' agents; once one is SIGKILLed, it
 * shows offline within the lease, its agents counted nowhere. Screenshots are kept in
 * test-results/devices/ to be looked at. Needs dist/ built and Debian's postgresql.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { DEFAULT_LEASE } from '../../main/storage/postgres/devices.js';
import { listening, SCRIPTED_SERVER, trackProcesses } from '../support/processes.js';
import type { PgCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import { until } from '../support/until.js';
import { giveBackTestBrowser, takeTestBrowser } from '../support/test-browser.js';

const SHOTS = join(PACKAGE_ROOT, 'test-results/devices');
const { launch, tempDir } = trackProcesses('chatbridge-devices-');

let cluster: PgCluster;
let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  cluster = await sharedPostgres();
  browser = await takeTestBrowser();
});
afterAll(async () => {
  await giveBackTestBrowser(browser);
  await cluster?.stop();
});

async function device(database: string, name: string, agents: string, extra: string[] = []) {
  const dataDir = tempDir();
  const proc = launch([SCRIPTED_SERVER, '--data-dir', dataDir, '--port', '0', '--agents', agents, '--database', database, '--device-name', name, ...extra]);
  if (extra.includes('--no-api')) {
    await until(() => /running/.test(proc.out.stdout), 20_000, `${name} to run`);
    return { proc, dataDir, url: null, token: '' };
  }
  const { url } = await listening(proc);
  return { proc, dataDir, url, token: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() };
}

describe('devices on the dashboard', () => {
  it("lists every device with its agents; a dead one's agents stop counting within the lease", async () => {
    const db = await cluster.createDatabase();
    const desk = await device(db, 'desk', '');
    const laptop = await device(db, 'laptop', 'chatgpt=2,claude=1');
    await device(db, 'basement', 'gemini=1', ['--no-api']);
    const status = async () =>
      (await (await fetch(`${desk.url}/v1/status`, { headers: { authorization: `Bearer ${desk.token}` } })).json()) as {
        agents: { idle: number; total: number };
        devices: { name: string; base_url: string | null; online: boolean; agents: { name: string; state: string }[] }[];
      };
    await until(async () => (await status()).agents.total === 4, 10_000, 'desk to count the four agents of the others');
    const seen = await status();
    expect(seen.devices.map((d) => [d.name, d.base_url, d.online, d.agents.length])).toEqual([
      ['desk', desk.url, true, 0],
      ['basement', null, true, 1],
      ['laptop', laptop.url, true, 3],
    ]);

    // The agent-less instance takes a job it cannot start itself: the others' agents can.
    const submit = await fetch(`${desk.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${desk.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello from desk', provider: 'claude', wait: false }),
    });
    expect(submit.status).toBe(202);

    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    onTestFinished(() => page.close());
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${desk.url}/#/overview&token=${desk.token}`);
    const devices = page.getByRole('region', { name: 'Devices' });
    await devices.getByRole('article', { name: 'laptop' }).waitFor();
    expect(await devices.getByRole('article').allInnerTexts()).toEqual([
      expect.stringMatching(/^desk\s+this one\s+online\s+http:\/\/127\.0\.0\.1:\d+\s+No agents$/),
      expect.stringMatching(/^basement\s+online\s+no API \(--no-api\)\s+gemini-1\s+Gemini\s+idle$/),
      expect.stringMatching(/^laptop\s+online\s+http:\/\/127\.0\.0\.1:\d+[\s\S]*chatgpt-1[\s\S]*chatgpt-2[\s\S]*claude-1/),
    ]);
    await expect.poll(() => page.getByText('Agents ready').locator('..').textContent(), { timeout: 10_000 }).toMatch(/4 of 4/);
    await page.screenshot({ path: join(SHOTS, 'devices-online.png'), fullPage: true });

    // The laptop dies: within the lease (and the next read, 2 s later) it shows offline.
    laptop.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    await devices.getByRole('article', { name: 'laptop' }).getByText('offline', { exact: true }).waitFor({ timeout: DEFAULT_LEASE.leaseMs + 5_000 });
    const shownAfter = Date.now() - killedAt;
    console.log(`the killed device showed offline on the dashboard ${shownAfter} ms after the kill`);
    expect(shownAfter).toBeLessThanOrEqual(DEFAULT_LEASE.leaseMs + DEFAULT_LEASE.sweepMs + 1_000);
    const after = await status();
    expect(after.agents).toMatchObject({ idle: 1, total: 1 });
    expect(after.devices.find((d) => d.name === 'laptop')).toMatchObject({ online: false });
    await expect.poll(() => page.getByText('Agents ready').locator('..').textContent(), { timeout: 15_000 }).toMatch(/1 of 1/);
    await page.screenshot({ path: join(SHOTS, 'devices-one-offline.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);
});
