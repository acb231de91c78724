/**
 * `chatbridge keys` against a running server: create prints the key alone on its last line,
 * list never shows a secret, revoke and --expires-in reach the server within a second.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRuns, api, heldAfter, withinOneSecond, CALLBACK } from '../support/cli-runs.js';
import { type Running } from '../support/processes.js';

const { tempDir, ok, createKey, serve } = cliRuns();

describe('chatbridge keys', () => {
  let dir: string;
  let server: Running;

  beforeEach(async () => {
    dir = tempDir();
    server = await serve(['--port', '0', '--data-dir', dir]);
  });

  it('keys create prints the key alone on the last line, and the key holds exactly its scopes', async () => {
    const ro = await createKey(dir, 'completions:read');
    const wo = await createKey(dir, 'completions:write');
    const rw = await createKey(dir, 'completions:read,completions:write');
    for (const k of [ro, wo, rw]) {
      const lines = k.stdout.trimEnd().split('\n');
      expect(lines.filter((l) => l.includes(k.key))).toEqual([k.key]);
    }
    expect(new Set([ro.key, wo.key, rw.key]).size).toBe(3);

    // Read-only: reads pass the scope check, writes are 403.
    expect((await api(server.url, ro.key, 'GET', '/v1/status')).status).toBe(200);
    expect((await api(server.url, ro.key, 'GET', '/v1/completions/job_nope')).body.error.code).toBe('NOT_FOUND');
    const roPost = await api(server.url, ro.key, 'POST', '/v1/completions', { prompt: 'x', wait: false, callback_url: CALLBACK });
    expect(roPost.status).toBe(403);
    expect(roPost.body.error.code).toBe('FORBIDDEN');
    expect((await api(server.url, ro.key, 'DELETE', '/v1/completions/job_nope')).status).toBe(403);

    // Write-only: writes work, reads are 403.
    const posted = await api(server.url, wo.key, 'POST', '/v1/completions', { prompt: 'x', wait: false, callback_url: CALLBACK });
    expect(posted.status).toBe(202);
    expect((await api(server.url, wo.key, 'GET', `/v1/completions/${posted.body.id}`)).status).toBe(403);
    expect((await api(server.url, wo.key, 'GET', '/v1/status')).status).toBe(403);

    // Both scopes.
    expect((await api(server.url, rw.key, 'GET', `/v1/completions/${posted.body.id}`)).body.status).toBe('queued');
    expect((await api(server.url, rw.key, 'DELETE', `/v1/completions/${posted.body.id}`)).body.status).toBe('cancelled');
  });

  it('keys list shows every key with its scopes and last use, never the secret', async () => {
    const a = await createKey(dir, 'completions:read');
    const b = await createKey(dir, 'completions:read,completions:write');
    let list = (await ok(['keys', 'list', '--data-dir', dir])).stdout;
    const lines = list.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const lineA = lines.find((l) => l.includes(a.id))!;
    const lineB = lines.find((l) => l.includes(b.id))!;
    expect(lineA).toMatch(/\bactive\b/);
    expect(lineA).toContain('"key-completions:read"');
    expect(lineA).toMatch(/last used -/);
    expect(lineB).toContain('completions:read,completions:write');
    for (const k of [a, b]) {
      expect(list).not.toContain(k.key);
      expect(list).not.toContain(k.key.slice(3, 23));
    }
    // A use shows up as its last use.
    expect((await api(server.url, a.key, 'GET', '/v1/status')).status).toBe(200);
    list = (await ok(['keys', 'list', '--data-dir', dir])).stdout;
    expect(list.split('\n').find((l) => l.includes(a.id))).toMatch(/last used \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
  });

  it('keys revoke makes the key 401 on the running server within one second', async () => {
    const k = await createKey(dir, 'completions:read,completions:write');
    const other = await createKey(dir, 'completions:read');
    expect((await api(server.url, k.key, 'GET', '/v1/status')).status).toBe(200);
    const r = await ok(['keys', 'revoke', k.id, '--data-dir', dir]);
    await withinOneSecond('the revoked key to get 401', r.endedAt, async () => {
      const res = await api(server.url, k.key, 'GET', '/v1/status');
      return res.status === 401 && res.body.error.code === 'UNAUTHORIZED';
    });
    expect((await api(server.url, k.key, 'POST', '/v1/completions', { prompt: 'x', wait: false, callback_url: CALLBACK })).status).toBe(401);
    // Only that key.
    expect((await api(server.url, other.key, 'GET', '/v1/status')).status).toBe(200);
    expect((await ok(['keys', 'list', '--data-dir', dir])).stdout.split('\n').find((l) => l.includes(k.id))).toMatch(/\brevoked\b/);
  });

  it('--expires-in: the key works until the duration passes, then gets 401', async () => {
    // 5 s: the command that made it may take seconds to end on a busy machine, and the key
    // must still work once it has.
    const k = await createKey(dir, 'completions:read', ['--expires-in', '5s']);
    const createdAt = Date.now();
    expect((await api(server.url, k.key, 'GET', '/v1/status')).status).toBe(200);
    const ms = await heldAfter('the key to expire', createdAt, async () => (await api(server.url, k.key, 'GET', '/v1/status')).status === 401, 10_000);
    expect(ms).toBeGreaterThan(2_000);
    expect(ms).toBeLessThan(6_500);
    expect((await ok(['keys', 'list', '--data-dir', dir])).stdout).toMatch(/\bexpired\b/);

    // Longer units are parsed too: 90d is ninety days from now.
    const long = await createKey(dir, 'completions:read', ['--expires-in', '90d']);
    const expires = /expires (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(long.stdout)?.[1];
    expect(expires, long.stdout).toBeDefined();
    expect(Math.abs(Date.parse(expires!) - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);
    expect((await api(server.url, long.key, 'GET', '/v1/status')).status).toBe(200);
  });
});
