/**
 * User mistakes: one line on stderr, no stack trace, a non-zero exit; a data dir that does not
 * exist or is a file, a second serve, a port in use, commands racing on a fresh data dir; and
 * --help, which answers on stdout.
 */
import Database from 'better-sqlite3';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRuns, api, sleep, expectUsageError, KEY_SHAPE } from '../support/cli-runs.js';

const { tempDir, cli, ok, createKey, serve } = cliRuns();

describe('user mistakes: one line on stderr, no stack trace, non-zero exit', () => {
  const cases: [string, (dir: string) => string[], RegExp?][] = [
    ['an unknown command', () => ['frobnicate'], /frobnicate/],
    ['an unknown flag', (d) => ['keys', 'list', '--bogus', '--data-dir', d], /--bogus/],
    ['an unknown flag of serve', (d) => ['serve', '--prot', '0', '--data-dir', d], /--prot/],
    ['caps set without a target', (d) => ['caps', 'set', '--per-hour', '3', '--data-dir', d]],
    ['caps set with two targets', (d) => ['caps', 'set', '--global', '--provider', 'claude', '--per-hour', '3', '--data-dir', d]],
    ['caps set without --per-hour', (d) => ['caps', 'set', '--global', '--data-dir', d], /--per-hour/],
    ['--per-hour abc', (d) => ['caps', 'set', '--provider', 'chatgpt', '--per-hour', 'abc', '--data-dir', d], /abc/],
    ['an unknown provider', (d) => ['caps', 'set', '--provider', 'bard', '--per-hour', '3', '--data-dir', d], /bard/],
    ['an unknown agent', (d) => ['caps', 'set', '--agent', 'agt_nope', '--per-hour', '3', '--data-dir', d], /agt_nope/],
    ['rotation set bogus', (d) => ['rotation', 'set', 'bogus', '--data-dir', d], /bogus/],
    ['keys revoke of an unknown id', (d) => ['keys', 'revoke', 'key_doesnotexist', '--data-dir', d], /key_doesnotexist/],
    ['keys create without a name', (d) => ['keys', 'create', '--scopes', 'completions:read', '--data-dir', d]],
    ['keys create with an unknown scope', (d) => ['keys', 'create', '--name', 'n', '--scopes', 'admin', '--data-dir', d], /admin/],
    ['keys create --expires-in 5x', (d) => ['keys', 'create', '--name', 'n', '--scopes', 'completions:read', '--expires-in', '5x', '--data-dir', d], /5x/],
    ['status with no server running', (d) => ['status', '--data-dir', d]],
    ['serve --port abc', (d) => ['serve', '--port', 'abc', '--data-dir', d], /abc/],
    // Not node's "argument is ambiguous": the cap's own rule.
    ['--per-hour -1', (d) => ['caps', 'set', '--global', '--per-hour', '-1', '--data-dir', d], /--per-hour takes a whole number or "none", not "-1"/],
    ['agents add of an unknown provider', (d) => ['agents', 'add', 'bard', '--data-dir', d], /chatgpt, claude/],
    ['agents rename without a name', (d) => ['agents', 'rename', 'agt_x', '--data-dir', d], /rename ID NAME/],
  ];

  it.each(cases)('%s', async (_label, args, message) => {
    const dir = tempDir();
    const r = await cli(args(dir));
    expectUsageError(r, message);
    expect(r.stdout).toBe('');
  });

  it('read-only commands on a data dir that does not exist say so and leave none behind', async () => {
    const dir = join(tempDir(), 'nothing-here');
    for (const args of [['keys', 'list'], ['status'], ['webhooks', 'log', 'job_x'], ['agents', 'list']]) {
      expectUsageError(await cli([...args, '--data-dir', dir]));
      expect(existsSync(dir), args.join(' ')).toBe(false);
    }
  });

  it('a --data-dir that is a regular file', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    expectUsageError(await cli(['keys', 'list', '--data-dir', file]));
  });

  it('a second serve on the same data dir is refused, and the first keeps serving', async () => {
    const dir = tempDir();
    const { key } = await createKey(dir, 'completions:read');
    const first = await serve(['--port', '0', '--data-dir', dir]);
    const second = await cli(['serve', '--port', '0', '--data-dir', dir]);
    expectUsageError(second, /already running/);
    expect(second.stdout).toBe('');
    expect((await api(first.url, key, 'GET', '/v1/status')).status).toBe(200);
    // The refused one did not take the data dir from the running one.
    expect(JSON.parse((await ok(['status', '--json', '--data-dir', dir])).stdout).devices[0].base_url).toBe(first.url);
  });

  it('serve on a port already in use', async () => {
    const blocker: NetServer = createServer();
    await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', res));
    try {
      const port = (blocker.address() as { port: number }).port;
      const dir = tempDir();
      const r = await cli(['serve', '--port', String(port), '--data-dir', dir]);
      expectUsageError(r, new RegExp(`${port}.*choose one with --port N, or --port 0 for any free port`));
      // Started by npm start, the flag goes after --.
      const npmStart = { npm_lifecycle_event: 'start', npm_lifecycle_script: 'node bin/chatbridge.js start' };
      expectUsageError(await cli(['serve', '--port', String(port), '--data-dir', dir], npmStart), /choose one with npm start -- --port N, or npm start -- --port 0 for any free port/);
      // It left nothing claiming the data dir.
      expectUsageError(await cli(['status', '--data-dir', dir]), /not running/);
    } finally {
      await new Promise((res) => blocker.close(res));
    }
  });

  it('commands started together on a fresh data dir all succeed (one of them finds the schema half made)', async () => {
    // Another ChatBridge process is creating the database right now: it holds the write
    // lock. Commands started meanwhile must wait for it and then use the schema it made.
    const dir = tempDir();
    const holder = new Database(join(dir, 'chatbridge.db'));
    holder.pragma('journal_mode = WAL');
    holder.exec('BEGIN IMMEDIATE');
    const runs = ['a', 'b', 'c'].map((name) => cli(['keys', 'create', '--name', name, '--scopes', 'completions:read', '--data-dir', dir]));
    await sleep(1_500);
    holder.exec('ROLLBACK');
    holder.close();
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n').pop()).toMatch(KEY_SHAPE);
    }
    expect((await ok(['keys', 'list', '--data-dir', dir])).stdout.trimEnd().split('\n')).toHaveLength(3);
  });
});

describe('help', () => {
  it('chatbridge --help lists serve --simulate and its options; serve --help and agents --help work', async () => {
    const [top, serveHelp, agentsHelp] = await Promise.all([ok(['--help']), ok(['serve', '--help']), ok(['agents', '--help'])]);
    expect(top.stdout).toMatch(/--simulate-agents P=N/);
    expect(top.stdout).toMatch(/^  chatbridge agents list .*agents add PROVIDER/m);
    expect(serveHelp.stdout).toMatch(/^chatbridge serve .*--simulate/);
    expect(serveHelp.stdout).toMatch(/--simulate-agents P=N/);
    expect(agentsHelp.stdout).toMatch(/^chatbridge agents list/);
  });
});
