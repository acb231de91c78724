/**
 * `keys` and `accounts` with --database: the built CLI (needs dist/) changes the shared
 * PostgreSQL, and an instance listening on it (its key and account stores, as `serve
 * --database` holds them) takes a new key, refuses a revoked one or a disabled account's.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { PgAccountStore } from '../../main/storage/postgres/account-store.js';
import { PgKeyStore } from '../../main/storage/postgres/key-store.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { TableChanges } from '../../main/storage/postgres/table-changes.js';
import { runCommand } from '../support/processes.js';
import { until } from '../support/until.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';
import { claimDatabaseProfile } from '../../main/storage/postgres/profile.js';
import { CLI as CLI_NAME } from '../../main/core/cli-name.js';

let postgres: MigratedCluster;
/** Where a command would make a data dir if it fell back to one: it must stay empty. */
let home: string;
beforeAll(async () => {
  postgres = await startMigratedCluster();
  home = mkdtempSync(join(tmpdir(), 'chatbridge-pg-keys-home-'));
});
afterAll(async () => {
  await postgres?.cluster.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A running instance's keys and accounts on the database, listening. */
interface Instance {
  url: string;
  database: string;
  pool: pg.Pool;
  changes: TableChanges;
  keys: PgKeyStore;
  accounts: PgAccountStore;
  errors: Error[];
}
let running: Instance | undefined;
afterEach(async () => {
  if (!running) return;
  expect(running.errors).toEqual([]);
  running.changes.close();
  await running.pool.end();
  running = undefined;
});

async function instanceOn(profile: 'personal' | 'hosted'): Promise<Instance> {
  const url = await postgres.newDatabase();
  const pool = await connect(url, { max: 4 });
  await claimDatabaseProfile(pool, profile);
  const changes = new TableChanges(pool);
  const errors: Error[] = [];
  const accounts = new PgAccountStore(pool, changes, systemClock, randomIds, (e) => errors.push(e));
  const keys = new PgKeyStore(pool, changes, accounts, systemClock, randomIds, (e) => errors.push(e));
  await changes.listen();
  await accounts.load();
  await keys.load();
  running = { url, database: new URL(url).pathname.slice(1), pool, changes, keys, accounts, errors };
  return running;
}

const chatbridge = (args: string[], env: Record<string, string> = {}) => runCommand(args, home, env);

async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await chatbridge(args, env);
  expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
  return r.stdout;
}

const lastLine = (stdout: string) => stdout.trimEnd().split('\n').at(-1)!;

describe('keys on the shared database', () => {
  it('create, list and revoke reach a running instance (also through CHATBRIDGE_DATABASE_URL)', async () => {
    const i = await instanceOn('personal');
    const created = await ok(['keys', 'create', '--name', 'laptop', '--scopes', 'completions:read,completions:write', '--database', i.url]);
    const secret = lastLine(created);
    expect(created).toMatch(/^Created key_\w+ "laptop" with completions:read, completions:write\.\n/);
    await until(() => i.keys.authenticate(secret).ok, 15_000, 'the running instance to take the new key');
    const id = i.keys.list()[0]!.id;
    const listed = await ok(['keys', 'list'], { CHATBRIDGE_DATABASE_URL: i.url });
    expect(listed).toMatch(new RegExp(`^${id}  cb_\\w{4}…  active   completions:read,completions:write  "laptop"  created \\S+Z  last used -\\n$`));
    expect(listed).not.toContain(secret.slice(7));
    expect(await ok(['keys', 'revoke', id, '--database', i.url])).toBe(`Revoked ${id}.\n`);
    await until(() => !i.keys.authenticate(secret).ok, 15_000, 'the running instance to refuse the revoked key');
    expect(i.keys.authenticate(secret)).toEqual({ ok: false, reason: 'revoked' });
    expect(await ok(['keys', 'revoke', id, '--database', i.url])).toBe(`${id} was already revoked.\n`);
    expect(await ok(['keys', 'list', '--database', i.url])).toMatch(/ revoked /);
    const unknown = await chatbridge(['keys', 'revoke', 'key_nope', '--database', i.url]);
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: 'chatbridge: No key key_nope.\n' });
  });

  it('refuses --account on a personal database, and accounts altogether, in one line', async () => {
    const i = await instanceOn('personal');
    const withAccount = await chatbridge(['keys', 'create', '--name', 'k', '--scopes', 'completions:read', '--account', 'acct_x', '--database', i.url]);
    expect(withAccount).toEqual({ code: 2, stdout: '', stderr: 'chatbridge: --account is for the hosted profile; a personal install is one account.\n' });
    const accounts = await chatbridge(['accounts', 'list', '--database', i.url]);
    expect(accounts).toEqual({
      code: 2,
      stdout: '',
      stderr: `chatbridge: The database ${i.database} is not a hosted one (a personal install is one account): start an instance on it once with serve --profile hosted --database URL.\n`,
    });
    expect(i.keys.list()).toEqual([]);
  });
});

describe('accounts on the shared database', () => {
  it("create, set and disable reach a running instance, which refuses a disabled account's keys at once", async () => {
    const i = await instanceOn('hosted');
    const created = await ok(['accounts', 'create', '--name', 'acme', '--retention-days', '30', '--database', i.url]);
    expect(created).toMatch(/^Created account "acme" \(retention: 30 days\)\. Its id, for keys create --account:\nacct_\w+\n$/);
    const account = lastLine(created);
    const noAccount = await chatbridge(['keys', 'create', '--name', 'k', '--scopes', 'completions:read', '--database', i.url]);
    expect(noAccount).toMatchObject({ code: 2, stderr: `chatbridge: Say whose key it is: --account ACCT_ID (see ${CLI_NAME} accounts list); only the operator's metrics:read key has none.\n` });
    const secret = lastLine(await ok(['keys', 'create', '--name', 'ci', '--scopes', 'completions:write', '--account', account, '--database', i.url]));
    await until(() => i.keys.authenticate(secret).ok, 15_000, "the running instance to take the account's key");
    expect(i.accounts.get(account)).toMatchObject({ name: 'acme', retention_days: 30 });

    expect(await ok(['accounts', 'set', account, '--retention-days', 'none', '--database', i.url])).toBe(`${account} retention: none.\n`);
    await until(() => i.accounts.get(account)?.retention_days === null, 15_000, 'the running instance to apply the retention');

    const disabled = new Promise<void>((resolve) => i.accounts.onChange(() => i.accounts.get(account)?.disabled_at !== null && resolve()));
    expect(await ok(['accounts', 'disable', account, '--database', i.url])).toBe(
      `Disabled ${account}: its keys are refused and its queued jobs are cancelled.\n`,
    );
    await disabled;
    expect(i.keys.authenticate(secret)).toEqual({ ok: false, reason: 'account_disabled' });
    expect(await ok(['accounts', 'list', '--database', i.url])).toMatch(new RegExp(`^${account}  disabled  retention none  "acme"  created \\S+Z\\n$`));
    const onDisabled = await chatbridge(['keys', 'create', '--name', 'k', '--scopes', 'completions:read', '--account', account, '--database', i.url]);
    expect(onDisabled).toMatchObject({ code: 2, stderr: `chatbridge: The account ${account} is disabled.\n` });
    expect(await ok(['accounts', 'disable', account, '--database', i.url])).toBe(`${account} was already disabled.\n`);
  });
});

describe('with --database no keys or accounts command touches a data dir', () => {
  it('left the fallback data home empty', () => {
    expect(readdirSync(home)).toEqual([]);
  });
});
