/**
 * Agents that say what broke, against `serve --simulate` (one simulated Claude agent in
 * real Chromium): `chatbridge sites check` as a process, with an override that breaks a
 * role (MISSING, exit 1; the service's log says it is in force) and without it again
 * (exit 0, no restart); a check never sets the agent aside as `error`. A job that fails
 * as site_changed, its diagnostic bundle in the admin API and "Check now" are
 * test/e2e/site-changed.test.ts.
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
    // What the simulated account's picker and toggles offer of the pack's variants.
    expect(healthy.stdout).toMatch(/^  variants offered: opus, sonnet, haiku, extended-thinking, opus-thinking$/m);
    // A check is no error (issue 22): the agent is not set aside for it, and the log says only how it went.
    const logged = (await adminCall('GET', '/admin/v1/logs')).entries as { level: string; message: string }[];
    expect(logged.filter((e) => /→ error/.test(e.message))).toEqual([]);
    expect(logged.find((e) => /site check: every role found/.test(e.message))?.level).toBe('info');

    breaking('send');
    // Hot-reloaded: the service's log says when the override is in force.
    await until(
      async () => (await adminCall('GET', '/admin/v1/logs')).entries.some((e: { message: string }) => /override .*claude\.json in force for Claude \(roles: send\)/.test(e.message)),
      10_000,
      'the override in force',
    );
    const broken = await sitesCheck('--provider', 'claude');
    expect(broken.code).toBe(1);
    expect(rowOf(broken.stdout, 'send')).toBe('MISSING');
    expect(broken.stdout).toContain(`override ${override()}`);
    expect(broken.stdout).toContain('=> missing: send');
    // The agent is itself again after the check: ready for jobs.
    await until(async () => (await adminCall('GET', '/admin/v1/state')).agents[0].state === 'idle', 20_000, 'idle after the check');

    rmSync(override());
    // Hot-reloaded too: the check waits until the service has let go of the override.
    await until(
      async () => (await adminCall('GET', '/admin/v1/logs')).entries.some((e: { message: string }) => /override .*claude\.json removed: Claude uses the built-in pack again/.test(e.message)),
      10_000,
      'the override gone',
    );
    const again = await sitesCheck('--provider', 'claude', '--send', '--json');
    expect(again.code).toBe(0);
    const [check] = JSON.parse(again.stdout);
    expect(check).toMatchObject({ agent_id: agentId, provider: 'claude', sent: true, problem: null, ok: true, pack: { override: null } });
    const status = Object.fromEntries(check.roles.map((r: { role: string; status: string }) => [r.role, r.status]));
    expect(status).toMatchObject({ composer: 'found', send: 'found', assistantTurn: 'found', answer: 'found', finished: 'found', copy: 'found' });

    expect((await sitesCheck('--provider', 'gemini')).code).toBe(2);
  }, 180_000);
});
