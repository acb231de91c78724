/**
 * The hosted profile's commands through real processes (`node bin/chatbridge.js …`):
 * `serve --profile`, `accounts …`, `keys create --account`, `settings variants` and `settings webhooks`. Needs dist/ built.
 */
import { describe, expect, it } from 'vitest';
import { CLI, listening, trackProcesses } from '../support/processes.js';

const procs = trackProcesses('chatbridge-hosted-cli-');

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = procs.launch([CLI, ...args]);
  const exit = await p.closed;
  return { code: exit.code, stdout: p.out.stdout, stderr: p.out.stderr };
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;

/** A data dir that `serve --profile hosted` started once (and stopped). */
async function hostedDataDir(): Promise<string> {
  const dataDir = procs.tempDir();
  const server = await listening(procs.launch([CLI, 'serve', '--profile', 'hosted', '--port', '0', '--data-dir', dataDir]));
  server.child.kill('SIGTERM');
  expect((await server.closed).code).toBe(0);
  return dataDir;
}

describe('chatbridge in the hosted profile', () => {
  it('creates, lists, sets and disables accounts; keys need --account', async () => {
    const dataDir = await hostedDataDir();
    const created = await cli(['accounts', 'create', '--name', 'acme', '--retention-days', '30', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    const account = lastLine(created.stdout);
    expect(account).toMatch(/^acct_[0-9A-Za-z]+$/);

    const noAccount = await cli(['keys', 'create', '--name', 'k', '--scopes', 'completions:read', '--data-dir', dataDir]);
    expect(noAccount.code).toBe(2);
    expect(noAccount.stderr).toContain('--account');
    const key = await cli(['keys', 'create', '--account', account, '--name', 'k', '--scopes', 'completions:read', '--data-dir', dataDir]);
    expect(key.code, key.stderr).toBe(0);
    expect(lastLine(key.stdout)).toMatch(/^cb_[0-9A-Za-z]{40}$/);
    expect((await cli(['keys', 'create', '--account', 'acct_nope', '--name', 'k', '--scopes', 'completions:read', '--data-dir', dataDir])).code).toBe(2);
    // The operator's metrics key belongs to no account; it may hold no other scope.
    const metrics = await cli(['keys', 'create', '--name', 'prometheus', '--scopes', 'metrics:read', '--data-dir', dataDir]);
    expect(metrics.code, metrics.stderr).toBe(0);
    expect(metrics.stdout).toMatch(/^Created key_\w+ "prometheus" with metrics:read\.\n/);
    expect((await cli(['keys', 'create', '--name', 'p', '--scopes', 'metrics:read,completions:read', '--data-dir', dataDir])).code).toBe(2);

    expect((await cli(['accounts', 'set', account, '--retention-days', 'none', '--data-dir', dataDir])).code).toBe(0);
    expect((await cli(['accounts', 'set', account, '--retention-days', '0', '--data-dir', dataDir])).code).toBe(2);
    expect((await cli(['accounts', 'disable', account, '--data-dir', dataDir])).code).toBe(0);
    const list = await cli(['accounts', 'list', '--data-dir', dataDir]);
    expect(list.stdout).toMatch(new RegExp(`${account}\\s+disabled\\s+retention none\\s+"acme"`));
  });

  it("webhooks secret shows the operator the service's secret only, and says where each account finds its own", async () => {
    const dataDir = await hostedDataDir();
    const shown = await cli(['webhooks', 'secret', '--data-dir', dataDir]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^whsec_[0-9A-Za-z]{32}\n$/);
    expect(shown.stderr).toContain("Each account's jobs are signed with that account's own secret");
    expect(shown.stderr).toContain('GET /v1/webhooks/secret');
  });

  it('settings variants allows variants to the accounts, takes them back and caps them; settings webhooks keeps the deny-list; both refuse what is malformed', async () => {
    const dataDir = procs.tempDir();
    const variants = (...args: string[]) => cli(['settings', 'variants', ...args, '--data-dir', dataDir]);
    expect((await variants()).stdout).toBe(
      "Variants accounts may ask for: none (the hosted profile; the operator's own keys may ask for any).\nHourly caps per variant: none.\n",
    );
    expect((await variants('allow', 'chatgpt/thinking', 'claude/opus', 'chatgpt/pro')).code).toBe(0);
    expect((await variants('deny', 'chatgpt/pro')).code).toBe(0);
    const capped = await variants('cap', 'chatgpt/pro', '2');
    expect(capped.stdout).toBe(
      "Variants accounts may ask for: chatgpt/thinking, claude/opus (the hosted profile; the operator's own keys may ask for any).\nHourly caps per variant: chatgpt/pro 2.\n",
    );
    const refused = await variants('allow', 'chatgpt');
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'chatbridge: A variant is named PROVIDER/VARIANT (such as chatgpt/thinking), the provider one of chatgpt, claude, gemini, deepseek, qwen, perplexity, not "chatgpt".\n',
    ]);
    expect((await variants('cap', 'chatgpt/pro', 'many')).code).toBe(2);

    const webhooks = (...args: string[]) => cli(['settings', 'webhooks', ...args, '--data-dir', dataDir]);
    expect((await webhooks('deny', '169.254.0.0/16', '10.0.0.0/8')).code).toBe(0);
    expect((await webhooks('undeny', '10.0.0.0/8')).stdout).toBe('Webhooks are never sent to: 169.254.0.0/16.\n');
    expect((await webhooks('deny', 'example.com')).stderr).toBe('chatbridge: Not an address or a range such as 203.0.113.0/24 or 2001:db8::/32: "example.com".\n');
  });

  it('refuses to serve a data dir in the other profile, in one line', async () => {
    const dataDir = await hostedDataDir();
    const refused = await cli(['serve', '--profile', 'personal', '--port', '0', '--data-dir', dataDir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/belongs to the hosted profile/);
    expect((await cli(['serve', '--profile', 'shared', '--data-dir', dataDir])).code).toBe(2);
  });

  it('keeps accounts and --account out of the personal profile', async () => {
    const dataDir = procs.tempDir();
    const accounts = await cli(['accounts', 'create', '--name', 'x', '--data-dir', dataDir]);
    expect(accounts.code).toBe(2);
    expect(accounts.stderr).toMatch(/not a hosted one/);
    const key = await cli(['keys', 'create', '--account', 'acct_x', '--name', 'k', '--scopes', 'completions:read', '--data-dir', dataDir]);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('--account is for the hosted profile');
  });
});
