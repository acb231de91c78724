/**
 * Keys and accounts on PostgreSQL: the contracts both implementations pass, then what only
 * several instances on one database can show (two "instances" are two pools, each with its
 * TableChanges listening, as `serve --database` holds them).
 */
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '../../main/core/ids.js';
import { TOUCH_EVERY_MS } from '../../main/keys/key-store.js';
import { PgAccountStore } from '../../main/storage/postgres/account-store.js';
import { PgKeyStore } from '../../main/storage/postgres/key-store.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { TableChanges } from '../../main/storage/postgres/table-changes.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { keyStoreContract } from './key-store-contract.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

/** One instance's share of the database: its pool, its TableChanges and its two stores, loaded. */
interface Instance {
  pool: pg.Pool;
  changes: TableChanges;
  keys: PgKeyStore;
  accounts: PgAccountStore;
  errors: Error[];
}

const opened: Instance[] = [];
async function closeAll(): Promise<void> {
  await Promise.all(
    opened.splice(0).map(async (i) => {
      await i.keys.close();
      i.changes.close();
      await i.pool.end();
    }),
  );
}

async function instance(url: string, clock = new ManualClock(), { listen = true } = {}): Promise<Instance> {
  const pool = await connect(url, { max: 4 });
  const changes = new TableChanges(pool);
  const errors: Error[] = [];
  const accounts = new PgAccountStore(pool, changes, clock, randomIds, (e) => errors.push(e));
  const keys = new PgKeyStore(pool, changes, accounts, clock, randomIds, (e) => errors.push(e));
  const made: Instance = { pool, changes, keys, accounts, errors };
  opened.push(made);
  // Listening before loading: a change made in between is heard, not lost.
  if (listen) await changes.listen();
  await accounts.load();
  await keys.load();
  return made;
}

keyStoreContract('PostgreSQL', async (clock) => {
  const url = await postgres.newDatabase();
  // Not listening: another store's change reaches it only through invalidate(), which the contract tests.
  const here = await instance(url, clock, { listen: false });
  return {
    keys: here.keys,
    accounts: here.accounts,
    another: () => instance(url, clock),
    row: async (id) => (await here.pool.query(`SELECT * FROM api_keys WHERE id = $1`, [id])).rows[0],
    settled: () => here.keys.close(),
    close: closeAll,
  };
});

describe('PostgreSQL keys and accounts: two instances on one database', () => {
  afterEach(async () => {
    expect(opened.flatMap((i) => i.errors)).toEqual([]);
    await closeAll();
  });
  const both = async () => {
    const url = await postgres.newDatabase();
    const clock = new ManualClock();
    return { clock, a: await instance(url, clock), b: await instance(url, clock) };
  };
  /** Resolves at B's next change of accounts that `shows`. */
  const heard = (b: Instance, shows: () => boolean) =>
    new Promise<void>((resolve) => {
      const stop = b.accounts.onChange(() => {
        if (shows()) {
          stop();
          resolve();
        }
      });
    });

  it('authenticates on B a key created on A, and refuses it there once A revoked it', async () => {
    const { a, b } = await both();
    const { key, secret } = await a.keys.create({ name: 'k', scopes: ['completions:read'], expiresAt: null });
    const created = performance.now();
    await until(() => b.keys.authenticate(secret).ok, 15_000, 'B to take the key made on A');
    console.log(`B took A's new key ${Math.round(performance.now() - created)} ms after its commit`);
    expect(b.keys.get(key.id)).toEqual(key);
    await a.keys.revoke(key.id);
    await until(() => !b.keys.authenticate(secret).ok, 15_000, 'B to refuse the key revoked on A');
    expect(b.keys.authenticate(secret)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('takes on B a key made on A a moment ago, before the news reached B, once asked again', async () => {
    const url = await postgres.newDatabase();
    const a = await instance(url);
    // B hears nothing: the news of A's key is as late as it may be under load.
    const b = await instance(url, new ManualClock(), { listen: false });
    const { key, secret } = await a.keys.create({ name: 'k', scopes: ['completions:read'], expiresAt: null });
    expect(b.keys.authenticate(secret)).toEqual({ ok: false, reason: 'unknown' });
    expect(await b.keys.authenticateAgain(secret)).toEqual({ ok: true, key });
    expect(await b.keys.authenticateAgain(`cb_${'x'.repeat(40)}`)).toEqual({ ok: false, reason: 'unknown' });
  });

  it("refuses on B the keys of an account disabled on A, as soon as B's accounts show it", async () => {
    const { a, b } = await both();
    const account = await a.accounts.create({ name: 'acme', retentionDays: null });
    const { secret } = await a.keys.create({ name: 'k', scopes: ['completions:read'], expiresAt: null, accountId: account.id });
    await until(() => b.keys.authenticate(secret).ok, 15_000, 'B to take the key made on A');
    const disabled = heard(b, () => b.accounts.get(account.id)?.disabled_at !== null);
    await a.accounts.disable(account.id);
    // A refuses before disable() resolved; B at its accounts' change, with no read of the keys.
    expect(a.keys.authenticate(secret)).toEqual({ ok: false, reason: 'account_disabled' });
    await disabled;
    expect(b.keys.authenticate(secret)).toEqual({ ok: false, reason: 'account_disabled' });
  });

  it('keeps every key and account created at once on both instances', async () => {
    const { a, b } = await both();
    const made = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).keys.create({ name: `k${i}`, scopes: ['completions:read'], expiresAt: null })),
    );
    const accounts = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).accounts.create({ name: `acct${i}`, retentionDays: null })));
    expect((await a.pool.query(`SELECT COUNT(*)::int AS n FROM api_keys`)).rows[0].n).toBe(40);
    for (const i of [a, b]) {
      await until(() => i.keys.list().length === 40 && i.accounts.list().length === 10, 15_000, 'both instances to hold every key and account');
      expect(made.every(({ secret }) => i.keys.authenticate(secret).ok)).toBe(true);
      expect(new Set(i.accounts.list().map((x) => x.id))).toEqual(new Set(accounts.map((x) => x.id)));
    }
  });

  it("writes a key's use once a minute between instances, and keeps a use it knows on reading the table again", async () => {
    const { clock, a, b } = await both();
    const { key, secret } = await a.keys.create({ name: 'k', scopes: ['completions:read'], expiresAt: null });
    await until(() => b.keys.get(key.id), 15_000, 'B to take the key');
    const use = (i: Instance) => {
      const auth = i.keys.authenticate(secret);
      if (!auth.ok) throw new Error(auth.reason);
      i.keys.recordUse(auth.key);
    };
    const stored = async () => {
      await Promise.all([a.keys.close(), b.keys.close()]);
      return (await a.pool.query(`SELECT last_used_at FROM api_keys WHERE id = $1`, [key.id])).rows[0].last_used_at;
    };
    const first = clock.now();
    const at = (minutes: number) => first + minutes * TOUCH_EVERY_MS;
    use(a);
    expect(await stored()).toBe(at(0));
    // B has not heard of A's use (uses announce nothing): it writes its own, which the row
    // refuses within the minute; B waits a minute from that use before it writes again.
    clock.advance(TOUCH_EVERY_MS / 2);
    use(b);
    expect(await stored()).toBe(at(0));
    clock.advance(TOUCH_EVERY_MS / 2);
    use(b);
    expect(await stored()).toBe(at(0));
    clock.advance(TOUCH_EVERY_MS / 2);
    use(b);
    expect(await stored()).toBe(at(1.5));
    // A's use half a minute after B's is refused by the row; A still knows of it when it reads the table again.
    clock.advance(TOUCH_EVERY_MS / 2);
    use(a);
    expect(await stored()).toBe(at(1.5));
    await b.keys.create({ name: 'other', scopes: [], expiresAt: null });
    await until(() => a.keys.list().length === 2, 15_000, 'A to read the keys again');
    expect(a.keys.get(key.id)!.last_used_at).toBe(at(2));
    expect(b.keys.get(key.id)!.last_used_at).toBe(at(1.5));
  });
});
