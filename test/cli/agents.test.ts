/**
 * `chatbridge agents`: add, check, rename, pause, enable, remove and settings, against the
 * running server as the dashboard does them; list without it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRuns, stopWith, api, heldAfter, withinOneSecond, expectUsageError } from '../support/cli-runs.js';
import { type Running } from '../support/processes.js';

const { tempDir, cli, ok, scriptedWithKey } = cliRuns();

describe('chatbridge agents', () => {
  let dir: string;
  let key: string;
  let server: Running;

  const agentState = async (id: string) =>
    ((await api(server.url, key, 'GET', '/v1/status')).body.devices[0].agents as { id: string; state: string; name: string }[]).find((a) => a.id === id);

  beforeEach(async () => {
    dir = tempDir();
    ({ server, key } = await scriptedWithKey(dir, 'claude=1'));
  });

  // Many commands, each a process: room for a loaded machine.
  it('add prints the id and the dashboard link that opens its login; check, rename, pause, enable and remove follow the dashboard', { timeout: 90_000 }, async () => {
    const added = await ok(['agents', 'add', 'chatgpt', '--name', 'Work GPT', '--data-dir', dir]);
    const id = /Added (agt_\w+) "Work GPT" \(ChatGPT\)/.exec(added.stdout)?.[1];
    expect(id, added.stdout).toBeDefined();
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    expect(added.stdout).toContain(`${server.url}/#/agents/${id}/login&token=${token}\n`);

    const listed = await ok(['agents', 'list', '--data-dir', dir]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  chatgpt +logging_in +"Work GPT"`, 'm'));
    expect(listed.stdout).toMatch(/^agt_\w+  claude +idle +"claude-1"/m);
    const json = JSON.parse((await ok(['agents', 'list', '--json', '--data-dir', dir])).stdout) as { id: string; state: string }[];
    expect(json.map((a) => a.state).sort()).toEqual(['idle', 'logging_in']);

    // The person logged in; check looks again and says so.
    const checked = await ok(['agents', 'check', id!, '--data-dir', dir]);
    expect(checked.stdout).toMatch(new RegExp(`^${id}  chatgpt +idle +"Work GPT"\n$`));
    expect((await agentState(id!))?.state).toBe('idle');

    const renamed = await ok(['agents', 'rename', id!, 'Home GPT', '--data-dir', dir]);
    await withinOneSecond('the new name', renamed.endedAt, async () => (await agentState(id!))?.name === 'Home GPT');
    const paused = await ok(['agents', 'pause', id!, '--data-dir', dir]);
    await withinOneSecond('the agent paused', paused.endedAt, async () => (await agentState(id!))?.state === 'paused');
    const enabled = await ok(['agents', 'enable', id!, '--data-dir', dir]);
    await withinOneSecond('the agent enabled', enabled.endedAt, async () => (await agentState(id!))?.state === 'idle');

    await ok(['agents', 'remove', id!, '--data-dir', dir]);
    expect(await agentState(id!)).toBeUndefined();
    expectUsageError(await cli(['agents', 'check', id!, '--data-dir', dir]), new RegExp(`No agent ${id}`));
  });

  it('set --pause and --proxy reach the running server within one second, the proxy shown masked; settings pause sets the global one', { timeout: 60_000 }, async () => {
    const id = (JSON.parse((await ok(['agents', 'list', '--json', '--data-dir', dir])).stdout) as { id: string }[])[0]!.id;
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    const view = async () => ((await api(server.url, token, 'GET', '/admin/v1/state')).body as { agents: { id: string; pause_ms: number | null; proxy: string | null }[] }).agents.find((a) => a.id === id)!;

    // A password never comes on the command line (ps, shell history): refused, nothing stored.
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'http://alice:hunter22@10.0.0.2:3128', '--data-dir', dir]), /--proxy: a password on the command line is seen by every user.*--proxy-password-file FILE.*CHATBRIDGE_PROXY_PASSWORD/);
    expect((await view()).proxy).toBeNull();
    const passwordFile = join(dir, 'proxy-password');
    writeFileSync(passwordFile, 'hunter22\n');
    const set = await ok(['agents', 'set', id, '--pause', '25s', '--proxy', 'http://alice@10.0.0.2:3128', '--proxy-password-file', passwordFile, '--data-dir', dir]);
    expect(set.stdout).toBe(`${id} pauses at least 25 s between jobs.\n${id} goes through http://a…:••••@10.0.0.2:3128; a running server restarts its browser.\n`);
    await withinOneSecond('the pause and the proxy', set.endedAt, async () => {
      const a = await view();
      return a.pause_ms === 25_000 && a.proxy === 'http://a…:••••@10.0.0.2:3128';
    });
    const listed = (await ok(['agents', 'list', '--data-dir', dir])).stdout;
    expect(listed).toMatch(/pause 25 s {2}proxy http:\/\/a…:••••@10\.0\.0\.2:3128/);
    expect(listed).not.toContain('hunter22');

    // The environment's password (its encoding into the stored URL: test/unit/proxy-option.test.ts).
    await ok(['agents', 'set', id, '--proxy', 'http://bob@10.0.0.3:3128', '--data-dir', dir], { CHATBRIDGE_PROXY_PASSWORD: 'p@ss:word' });
    await withinOneSecond('the proxy from the environment', Date.now(), async () => (await view()).proxy === 'http://b…:••••@10.0.0.3:3128');
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'http://10.0.0.2:3128', '--proxy-password-file', passwordFile, '--data-dir', dir]), /--proxy-password-file: the proxy names no user/);
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'http://alice@10.0.0.2:3128', '--proxy-password-file', join(dir, 'nothing-here'), '--data-dir', dir]), /--proxy-password-file: cannot read .*nothing-here \(ENOENT\)/);
    expectUsageError(await cli(['agents', 'set', id, '--proxy', 'socks5://u:hunter22@h:1080', '--data-dir', dir]), /--proxy: Chromium cannot log in to a SOCKS5 proxy/);
    expectUsageError(await cli(['agents', 'set', id, '--pause', 'soon', '--data-dir', dir]), /--pause takes a pause such as 20s/);
    expectUsageError(await cli(['agents', 'set', id, '--data-dir', dir]), /agents set ID \[--pause/);
    const back = await ok(['agents', 'set', id, '--pause', 'default', '--proxy', 'none', '--data-dir', dir]);
    await withinOneSecond('no pause or proxy of its own', back.endedAt, async () => {
      const a = await view();
      return a.pause_ms === null && a.proxy === null;
    });

    expect((await ok(['settings', 'pause', '--data-dir', dir])).stdout).toMatch(/^Pause between jobs: none\./); // the suite's CHATBRIDGE_PAUSE_MS=0
    const global = await ok(['settings', 'pause', '--min', '12s', '--data-dir', dir]);
    expect(global.stdout).toMatch(/^Pause between jobs: at least 12 s, plus up to 6 s at random/);
    await withinOneSecond('the global pause', global.endedAt, async () => (await api(server.url, token, 'GET', '/admin/v1/state')).body.settings.pause_ms === 12_000);
    expectUsageError(await cli(['settings', 'pause', '--days', '3', '--data-dir', dir]), /settings pause \[--min 10s\]/);
  });

  it('remove is refused while the agent runs a job, as in the dashboard', async () => {
    const claude = (await agentState((JSON.parse((await ok(['agents', 'list', '--json', '--data-dir', dir])).stdout) as { id: string }[])[0]!.id))!;
    const held = api(server.url, key, 'POST', '/v1/completions', { prompt: 'p [[hang]]', provider: 'claude' });
    await heldAfter('the job running', Date.now(), async () => (await agentState(claude.id))?.state === 'busy');
    expectUsageError(await cli(['agents', 'remove', claude.id, '--data-dir', dir]), /running a job/);
    expect(await agentState(claude.id)).toBeDefined();
    await stopWith(server, 'SIGTERM');
    await held.catch(() => {});
  });

  it('add, remove and check say the server must run; list works without it, and creates nothing', { timeout: 60_000 }, async () => {
    await stopWith(server, 'SIGTERM');
    expectUsageError(await cli(['agents', 'add', 'claude', '--data-dir', dir]), /not running/);
    expect((await ok(['agents', 'list', '--data-dir', dir])).stdout).toMatch(/^agt_\w+  claude +not running +"claude-1"\n$/);
    const fresh = join(tempDir(), 'never-made');
    expectUsageError(await cli(['agents', 'list', '--data-dir', fresh]), /Nothing is set up/);
    expect(existsSync(fresh)).toBe(false);
  });
});
