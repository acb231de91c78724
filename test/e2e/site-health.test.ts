/**
 * Agents that say what broke, against `serve --simulate` (one simulated Claude agent in
 * real Chromium): `chatbridge sites check` as a process, with an override that breaks a
 * role (MISSING, exit 1) and without it again (exit 0, no restart); a job that fails as
 * site_changed keeps a diagnostic bundle whose screenshot downloads as a PNG and whose
 * page.html does not hold the prompt; "Check now" makes the agent idle again at once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { CLI, listening, type Exit, type Running } from '../support/processes.js';
import { until } from '../support/until.js';

// One server for the file (trackProcesses would stop it after the first test).
let server: Running;
let base: string;
let dataDir: string;
let admin: string;
let agentId: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'chatbridge-site-health-'));
  const child = spawn(process.execPath, [CLI, 'serve', '--simulate-agents', 'claude=1', '--port', '0', '--data-dir', base], { cwd: PACKAGE_ROOT });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const closed = new Promise<Exit>((res) => child.once('close', (code, signal) => res({ code, signal })));
  server = await listening({ child, out, closed }, 30_000);
  await until(() => /simulated agents ready: 1 of 1/.test(server.out.stdout), 60_000, 'the simulated agent');
  dataDir = join(base, 'simulator');
  admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  agentId = (await adminCall('GET', '/admin/v1/state')).agents[0].id;
}, 120_000);
afterAll(async () => {
  // Stopped as a person stops it, so its browser is closed before the folder goes.
  server?.child.kill('SIGTERM');
  await server?.closed;
  rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

async function adminCall(method: string, path: string, body?: unknown) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json() as Promise<any>;
}

/** `chatbridge sites check ...` as a person runs it. */
function sitesCheck(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.CHATBRIDGE_DATA_DIR;
    const child = spawn(process.execPath, [CLI, 'sites', 'check', '--data-dir', dataDir, ...args], { cwd: PACKAGE_ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const rowOf = (stdout: string, role: string) => new RegExp(`^  ${role} +(.+)$`, 'm').exec(stdout)?.[1];
const override = () => join(dataDir, 'sites', 'claude.json');
const breaking = (role: string) =>
  writeFileSync(override(), JSON.stringify({ about: [`breaks ${role} for a test`], roles: { [role]: [{ kind: 'testid', css: '[data-testid="no-such-control"]' }] } }));

describe('when a site changes', () => {
  it('sites check reports each role, MISSING under a breaking override (exit 1), all found once it is gone (exit 0)', async () => {
    const healthy = await sitesCheck('--provider', 'claude');
    expect(healthy.stderr).toBe('');
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toMatch(/^chatbridge \S+ \(cli \S+\) · sites check · \d{4}-\d\d-\d\dT/);
    expect(healthy.stdout).toMatch(/pack claude v\d+, checked \d{4}-\d\d-\d\d; built-in pack/);
    expect(rowOf(healthy.stdout, 'composer')).toMatch(/^#\d+ \w+: /);
    expect(rowOf(healthy.stdout, 'send')).toMatch(/^#\d+ \w+: /);
    expect(rowOf(healthy.stdout, 'answer')).toBe('needs --send');
    expect(rowOf(healthy.stdout, 'limitBanner')).toBe('not shown now (normal)');
    expect(healthy.stdout).toContain('=> every role found');

    breaking('send');
    const broken = await sitesCheck('--provider', 'claude');
    expect(broken.code).toBe(1);
    expect(rowOf(broken.stdout, 'send')).toBe('MISSING');
    expect(broken.stdout).toContain(`override ${override()}`);
    expect(broken.stdout).toContain('=> missing: send');
    // The agent is itself again after the check: ready for jobs.
    await until(async () => (await adminCall('GET', '/admin/v1/state')).agents[0].state === 'idle', 20_000, 'idle after the check');

    rmSync(override());
    const again = await sitesCheck('--provider', 'claude', '--send', '--json');
    expect(again.code).toBe(0);
    const [check] = JSON.parse(again.stdout);
    expect(check).toMatchObject({ agent_id: agentId, provider: 'claude', sent: true, problem: null, ok: true, pack: { override: null } });
    const status = Object.fromEntries(check.roles.map((r: { role: string; status: string }) => [r.role, r.status]));
    expect(status).toMatchObject({ composer: 'found', send: 'found', assistantTurn: 'found', answer: 'found', finished: 'found', copy: 'found' });

    expect((await sitesCheck('--provider', 'gemini')).code).toBe(2);
  }, 180_000);

  it('a job that fails as site_changed keeps a bundle: listed, its screenshot a PNG, its page.html without the prompt; Check now heals the agent', async () => {
    breaking('assistantTurn');
    // Hot-reloaded: the service's log says when the override is in force.
    await until(
      async () => (await adminCall('GET', '/admin/v1/logs')).entries.some((e: { message: string }) => /override .*claude\.json in force for Claude \(roles: assistantTurn\)/.test(e.message)),
      10_000,
      'the override in force',
    );
    const prompt = 'Zanzibar-7 is the secret word of this prompt';
    const key = /API key for this run.*\n(cb_\S+)\n/.exec(server.out.stdout)![1]!;
    const started = Date.now();
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, provider: 'claude' }),
    });
    const failed = (await res.json()) as any;
    expect(res.status).toBe(502);
    expect(failed.error.code).toBe('PROVIDER_UI_CHANGED');
    expect(Date.now() - started).toBeLessThan(40_000);
    const jobId = failed.error.details.job_id;

    const detail = await adminCall('GET', `/admin/v1/jobs/${jobId}`);
    expect(detail.attempts[0].detail).toMatch(/^Claude: cannot find the answer/);
    expect(detail.diagnostics).toHaveLength(1);
    const bundle = detail.diagnostics[0];
    expect(bundle).toMatchObject({ name: `${jobId}-1`, attempt: 1, agent_id: agentId, failure: { kind: 'site_changed' }, pack: { override: override() } });
    expect(bundle.cues.assistantTurn).toBeNull();
    expect(bundle.cues.composer).toMatchObject({ index: expect.any(Number), kind: expect.any(String) });
    expect(bundle.files).toEqual(expect.arrayContaining(['screenshot.png', 'page.html', 'failure.json']));

    const get = (file: string) => fetch(`${server.url}/admin/v1/diagnostics/${bundle.name}/${file}`, { headers: { authorization: `Bearer ${admin}` } });
    const png = await get('screenshot.png');
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))).toBe(true);
    expect(bytes.length).toBeGreaterThan(1_000);
    const html = await (await get('page.html')).text();
    expect(html).toContain('<');
    expect(html).not.toContain('Zanzibar');

    // The agent is set aside, saying what broke; with the override gone, Check now heals it at once.
    const state = await adminCall('GET', '/admin/v1/state');
    expect(state.agents[0]).toMatchObject({ state: 'error', detail: expect.stringMatching(/^site changed: Claude: cannot find the answer/) });
    // It looks again on its own within 15 s, and says when (a timestamp each reader shows in its own time).
    expect(Date.parse(state.agents[0].next_check_at) - Date.now()).toBeLessThanOrEqual(15_000);
    rmSync(override());
    const rechecked = await adminCall('POST', `/admin/v1/agents/${agentId}/check`);
    expect(rechecked).toMatchObject({ state: 'idle' });
  }, 120_000);
});
