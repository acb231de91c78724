/**
 * `chatbridge serve` as a process: what it prints, the data dir it takes (flag or
 * CHATBRIDGE_DATA_DIR), the simulation beside a data dir, its key across runs, a stale
 * server file after a SIGKILL, and stopping with code 0 on SIGINT and SIGTERM.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI as CLI_NAME } from '../../main/core/cli-name.js';
import { cliRuns, stopWith, api, heldAfter, expectUsageError, KEY_SHAPE, type Res } from '../support/cli-runs.js';
import { CLI, listening, SIMULATION_KEY } from '../support/processes.js';

const { tempDir, cli, ok, createKey, serve, scripted, childEnv, launchWithEnv } = cliRuns();

describe('chatbridge serve', () => {
  it('serve --port 0 prints exactly "listening on http://127.0.0.1:PORT" and, off a terminal, the command that prints the dashboard link, never the link; answers, and stops with code 0 on SIGINT', async () => {
    const dir = tempDir();
    const { key } = await createKey(dir, 'completions:read,completions:write');
    const server = await serve(['--port', '0', '--data-dir', dir]);
    // With no account yet, a third line says how to add one.
    const m = /^listening on http:\/\/127\.0\.0\.1:(\d+)\ndashboard: [^\n]+\nno account is paired yet: [^\n]+\n$/.exec(server.out.stdout);
    expect(m, server.out.stdout).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${m![1]}`);

    const status = await api(server.url, key, 'GET', '/v1/status');
    expect(status.status).toBe(200);
    expect(status.body.devices[0].base_url).toBe(server.url);
    expect((await api(server.url, null, 'GET', '/v1/status')).body.error.code).toBe('UNAUTHORIZED');
    expect(existsSync(join(dir, 'chatbridge.db'))).toBe(true);
    await ok(['status', '--data-dir', dir]);

    // The hint runs as printed, and its link signs in.
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    const link = await ok(['dashboard', '--data-dir', dir]);
    expect(link.stdout).toBe(`dashboard: ${server.url}/#token=${token}\n`);
    expect((await api(server.url, token, 'GET', '/admin/v1/state')).status).toBe(200);

    expect(await stopWith(server, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(server.out.stdout).toBe(
      `listening on ${server.url}\ndashboard: ${CLI_NAME} dashboard --data-dir ${dir} prints its link (not written here: it holds the admin token)\n` +
        `no account is paired yet: jobs wait until you add one in the dashboard (Agents → Add account) or with ${CLI_NAME} agents add PROVIDER\n` +
        'stopped: no job was running\n',
    );
    expect(server.out.stderr).not.toContain(token);
    await expect(fetch(`${server.url}/v1/status`)).rejects.toThrow();
    // It no longer claims the data dir.
    expectUsageError(await cli(['status', '--data-dir', dir]), /not running/);
  });

  it('CHATBRIDGE_DATA_DIR selects the data dir of every command; SIGTERM stops serve with code 0', async () => {
    const dir = tempDir();
    const env = { CHATBRIDGE_DATA_DIR: dir };
    const created = await ok(['keys', 'create', '--name', 'via-env', '--scopes', 'completions:read'], env);
    const key = created.stdout.trimEnd().split('\n').pop()!;
    expect(key).toMatch(KEY_SHAPE);
    expect(existsSync(join(dir, 'chatbridge.db'))).toBe(true);

    const server = await serve(['--port', '0'], env);
    // The data dir is the variable's: the hint needs no flag.
    expect(server.out.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\ndashboard: (npx )?chatbridge dashboard prints its link \(not written here: it holds the admin token\)\nno account is paired yet: [^\n]+\n$/);
    expect((await ok(['dashboard'], env)).stdout).toBe(`dashboard: ${server.url}/#token=${readFileSync(join(dir, 'admin-token'), 'utf8').trim()}\n`);
    expect((await api(server.url, key, 'GET', '/v1/status')).status).toBe(200);
    const json = JSON.parse((await ok(['status', '--json'], env)).stdout);
    expect(json.devices[0].base_url).toBe(server.url);
    expect((await ok(['keys', 'list'], env)).stdout).toContain('"via-env"');
    // --data-dir wins over the variable (and, empty, has nothing to list).
    const other = tempDir();
    expectUsageError(await cli(['keys', 'list', '--data-dir', other], env), /Nothing is set up/);

    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, 'server.json'))).toBe(false);
  });

  it('the simulation serve --simulate runs beside a data dir: status and ask find it, their hints carry its flag, other commands name the flag', async () => {
    const base = tempDir();
    const simulation = join(base, 'simulator');
    mkdirSync(simulation);
    const server = await scripted(simulation, 'claude=1');
    const env = { CHATBRIDGE_DATA_DIR: base };
    const status = await ok(['status'], env);
    expect(status.stdout).toContain(`The simulation (serve --simulate); for other commands: --data-dir ${simulation}\n`);
    expect(status.stdout).toContain(`ChatBridge at ${server.url}: running`);
    const asked = await ok(['ask', 'hello'], env);
    expect(asked.stdout).toMatch(/^echo\(agt_\w+#1\): hello\n$/);
    const ref = /conversation_ref (cv_\w+)/.exec(asked.stderr)?.[1];
    expect(asked.stderr).toContain(`(continue it: ${CLI_NAME} ask --data-dir ${simulation} --continue ${ref} "…")`);
    expect((await ok(['ask', '--data-dir', simulation, '--continue', ref!, 'again'])).stdout).toMatch(/#2\): again\n$/);
    expectUsageError(await cli(['agents', 'add', 'chatgpt'], env), new RegExp(`but a simulation is \\(serve --simulate\\): add --data-dir ${simulation}$`, 'm'));
  });

  it('commands without --data-dir beside a running simulation: with nothing in the data folder they act on the simulation, else on the folder, saying so and naming the flag', async () => {
    const home = tempDir();
    const base = join(home, 'chatbridge');
    const simulation = join(base, 'simulator');
    mkdirSync(simulation, { recursive: true });
    const server = await scripted(simulation, 'claude=1');
    const env = { XDG_DATA_HOME: home };
    const onSimulation = `chatbridge: acting on the simulation (serve --simulate) in ${simulation}: ${base} holds nothing yet.\n`;

    // A person who only ever ran the simulation: the key the MCP hint makes works on it.
    const made = await ok(['keys', 'create', '--name', 'mcp', '--scopes', 'completions:read,completions:write'], env);
    expect(made.stderr).toBe(onSimulation);
    expect((await api(server.url, made.stdout.trimEnd().split('\n').pop()!, 'GET', '/v1/status')).status).toBe(200);
    const listed = await ok(['agents', 'list'], env);
    expect(listed.stdout).toMatch(/^agt_\w+ +claude +idle /);
    expect(listed.stderr).toBe(onSimulation);
    const token = await ok(['admin-token'], env);
    expect(token.stdout).toBe(`dashboard: ${server.url}/#token=${readFileSync(join(simulation, 'admin-token'), 'utf8').trim()}\n`);
    expect(token.stderr).toBe(`chatbridge: the simulation (serve --simulate); for other commands: --data-dir ${simulation}\n`);
    expect(existsSync(join(base, 'chatbridge.db'))).toBe(false);

    // Once the folder holds data of its own, commands act on it, and say so in one line.
    await createKey(base, 'completions:read');
    const own = await ok(['agents', 'list'], env);
    expect(own.stdout).toMatch(/^No account is paired yet/);
    expect(own.stderr).toBe(`chatbridge: acting on ${base}; a simulation (serve --simulate) runs beside it: add --data-dir ${simulation} to act on that.\n`);
    // admin-token still gives the link of what runs; with nothing running, it fails and says what to start.
    expect((await ok(['admin-token'], env)).stdout).toContain(server.url);
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expectUsageError(await cli(['admin-token'], env), new RegExp(`^chatbridge: ChatBridge is not running for ${base}\\. Start it \\(${CLI_NAME} serve\\), then run this again\\.\n$`));
  });

  it('serve --simulate keeps its key across runs (--new-key replaces it), has no pause between an agent\'s jobs by default and says so; settings pause on its data dir agrees, and a pause set holds', { timeout: 60_000 }, async () => {
    const base = tempDir();
    const simulation = join(base, 'simulator');
    // As a real install runs: without the suite's CHATBRIDGE_PAUSE_MS=0.
    const real = childEnv();
    delete real.CHATBRIDGE_PAUSE_MS;
    let keys: string[] = [];
    /** One run; `whileUp` is called with its address and key before it stops. */
    const simulate = async (extra: string[] = [], whileUp: (url: string, key: string) => Promise<void> = async () => {}) => {
      const p = await listening(launchWithEnv([CLI, 'serve', '--simulate-agents', 'chatgpt=0', '--port', '0', '--data-dir', base, ...extra], real));
      await heldAfter('the banner', Date.now(), async () => SIMULATION_KEY.test(p.out.stdout), 30_000);
      const key = SIMULATION_KEY.exec(p.out.stdout)![1]!;
      keys = [...keys, key];
      await whileUp(p.url, key);
      p.child.kill('SIGINT');
      await p.closed;
      return p.out.stdout;
    };
    const settingsPause = async (args: string[]) => {
      const p = launchWithEnv([CLI, 'settings', 'pause', ...args, '--data-dir', simulation], real);
      expect(await p.closed).toEqual({ code: 0, signal: null });
      return p.out.stdout;
    };
    expect(await simulate()).toContain(`pause between jobs: none (simulated sites cannot ban; ${CLI_NAME} settings pause --min 10s sets one)\n`);
    expect(await settingsPause([])).toMatch(/^Pause between jobs: none\./);
    expect(await settingsPause(['--min', '12s'])).toMatch(/^Pause between jobs: at least 12 s/);
    expect(await simulate()).toContain('pause between jobs: at least 12 s, as set');
    // The same key each run, said so; --new-key replaces it, and the old one no longer works.
    expect(new Set(keys).size).toBe(1);
    expect(await simulate(['--new-key'], async (url, key) => {
      expect(key).not.toBe(keys[0]);
      expect((await api(url, keys[0]!, 'GET', '/v1/status')).status).toBe(401);
      expect((await api(url, key, 'GET', '/v1/status')).status).toBe(200);
    })).toContain('API key (both scopes; new, kept for the next runs, --new-key replaces it):\n');
    expect(await simulate()).toContain(`API key (both scopes; the same as the last run, --new-key replaces it):\n${keys.at(-1)}\n`);
    // The real data dir beside it keeps the guard.
    const p = launchWithEnv([CLI, 'settings', 'pause', '--data-dir', base], real);
    await p.closed;
    expect(p.out.stdout).toMatch(/^Pause between jobs: at least 10 s/);
  });

  it('after a SIGKILL the stale server file neither fools status nor blocks a new serve', async () => {
    const dir = tempDir();
    const first = await serve(['--port', '0', '--data-dir', dir]);
    first.child.kill('SIGKILL');
    expect(await first.closed).toEqual({ code: null, signal: 'SIGKILL' });
    expectUsageError(await cli(['status', '--data-dir', dir]), /not running/);
    const second = await serve(['--port', '0', '--data-dir', dir]);
    expect(JSON.parse((await ok(['status', '--json', '--data-dir', dir])).stdout).devices[0].base_url).toBe(second.url);
    expect(await stopWith(second, 'SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM with a request held open still exits with code 0', async () => {
    const dir = tempDir();
    const { key } = await createKey(dir, 'completions:read,completions:write');
    const server = await serve(['--port', '0', '--data-dir', dir]);
    // No agent exists, so a wait: true job is held open until shutdown.
    const held = api(server.url, key, 'POST', '/v1/completions', { prompt: 'held' }).catch((e: Error) => e);
    await heldAfter('the held job queued', Date.now(), async () => (await api(server.url, key, 'GET', '/v1/status')).body.queue.depth === 1);
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    const r = await held;
    expect(r).not.toBeInstanceOf(Error);
    expect((r as Res).status).toBe(504);
  });
});
