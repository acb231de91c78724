/**
 * What every key store and account store must do (the KeyStore and AccountStore ports), as
 * suites each implementation runs: test/store/sqlite-keys.test.ts, test/store/pg-keys.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountStore } from '../../main/keys/account-store.js';
import { hashSecret, TOUCH_EVERY_MS, type KeyStore } from '../../main/keys/key-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';

/** A key store and the account store it checks, on one database. */
export interface Stores {
  keys: KeyStore;
  accounts: AccountStore;
}

export interface KeysUnderTest extends Stores {
  /** Another pair of stores on the same database, as another process opens them (loaded), on the same clock. */
  another(): Promise<Stores>;
  /** The key's row as stored, every column. */
  row(id: string): Promise<Record<string, unknown> | undefined>;
  /** Resolves once the last-use writes under way are committed (they are written without the request waiting). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const DAY = 86_400_000;
const BOTH = ['completions:read', 'completions:write'] as const;

export function keyStoreContract(name: string, makeStores: (clock: ManualClock) => Promise<KeysUnderTest>): void {
  describe(`${name} keys (the KeyStore contract)`, () => {
    let t: KeysUnderTest;
    let keys: KeyStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock();
      t = await makeStores(clock);
      keys = t.keys;
    });
    afterEach(() => t.close());

    it('creates a key, shows its secret once and stores only its SHA-256', async () => {
      const { key, secret } = await keys.create({ name: 'laptop', scopes: [...BOTH], expiresAt: clock.now() + DAY });
      expect(secret).toMatch(/^cb_[0-9A-Za-z]{40}$/);
      expect(key).toEqual({
        id: expect.stringMatching(/^key_/),
        name: 'laptop',
        hint: `${secret.slice(0, 7)}…`,
        scopes: [...BOTH],
        created_at: clock.now(),
        expires_at: clock.now() + DAY,
        revoked_at: null,
        last_used_at: null,
        account_id: null,
      });
      expect(keys.get(key.id)).toEqual(key);
      const row = (await t.row(key.id))!;
      expect(row.hash).toBe(hashSecret(secret));
      expect(Object.values(row).some((v) => typeof v === 'string' && v.includes(secret.slice(7)))).toBe(false);
    });

    it('lists keys oldest first, here and to another store on the database', async () => {
      const first = (await keys.create({ name: 'a', scopes: ['metrics:read'], expiresAt: null })).key;
      clock.advance(1);
      const second = (await keys.create({ name: 'b', scopes: [], expiresAt: null })).key;
      expect(keys.list()).toEqual([first, second]);
      expect((await t.another()).keys.list()).toEqual([first, second]);
      expect(keys.get('key_nope')).toBeUndefined();
    });

    it('authenticates a key, and refuses a malformed, unknown, revoked or expired one with its reason', async () => {
      const { key, secret } = await keys.create({ name: 'k', scopes: [...BOTH], expiresAt: null });
      const expiring = await keys.create({ name: 'e', scopes: [...BOTH], expiresAt: clock.now() + 1_000 });
      expect(keys.authenticate(secret)).toEqual({ ok: true, key });
      for (const malformed of ['', 'nope', `cb_${'x'.repeat(39)}`, `cb_${'x'.repeat(40)}!`, ` ${secret}`]) {
        expect(keys.authenticate(malformed)).toEqual({ ok: false, reason: 'malformed' });
      }
      expect(keys.authenticate(`cb_${'x'.repeat(40)}`)).toEqual({ ok: false, reason: 'unknown' });
      expect(keys.authenticate(expiring.secret).ok).toBe(true);
      clock.advance(1_000);
      expect(keys.authenticate(expiring.secret)).toEqual({ ok: false, reason: 'expired' });
      expect(await keys.revoke(key.id)).toBe(true);
      expect(keys.authenticate(secret)).toEqual({ ok: false, reason: 'revoked' });
      expect(keys.get(key.id)!.revoked_at).toBe(clock.now());
      expect(await keys.revoke(key.id)).toBe(false);
      expect(await keys.revoke('key_nope')).toBe(false);
    });

    it("refuses the keys of a disabled account, and only that account's", async () => {
      const mine = await t.accounts.create({ name: 'mine', retentionDays: null });
      const theirs = await t.accounts.create({ name: 'theirs', retentionDays: null });
      const myKey = await keys.create({ name: 'm', scopes: [...BOTH], expiresAt: null, accountId: mine.id });
      const theirKey = await keys.create({ name: 't', scopes: [...BOTH], expiresAt: null, accountId: theirs.id });
      expect(myKey.key.account_id).toBe(mine.id);
      expect(keys.authenticate(myKey.secret).ok).toBe(true);
      expect(await t.accounts.disable(mine.id)).toBe(true);
      expect(keys.authenticate(myKey.secret)).toEqual({ ok: false, reason: 'account_disabled' });
      expect(keys.authenticate(theirKey.secret)).toEqual({ ok: true, key: theirKey.key });
    });

    it('takes, when asked again, a key another store made; a made-up key stays unknown', async () => {
      const { key, secret } = await (await t.another()).keys.create({ name: 'k', scopes: [...BOTH], expiresAt: null });
      expect(await keys.authenticateAgain(secret)).toEqual({ ok: true, key });
      expect(await keys.authenticateAgain(`cb_${'y'.repeat(40)}`)).toEqual({ ok: false, reason: 'unknown' });
      expect(await keys.authenticateAgain('not a key')).toEqual({ ok: false, reason: 'malformed' });
    });

    it("refuses, once it reads again, a key another store revoked", async () => {
      const { key, secret } = await keys.create({ name: 'k', scopes: [...BOTH], expiresAt: null });
      expect(keys.authenticate(secret).ok).toBe(true);
      expect(await (await t.another()).keys.revoke(key.id)).toBe(true);
      keys.invalidate();
      await until(() => !keys.authenticate(secret).ok, 15_000, 'the revoked key to be refused');
      expect(keys.authenticate(secret)).toEqual({ ok: false, reason: 'revoked' });
    });

    it('records a use at once here, and writes it at most once a minute', async () => {
      const { key, secret } = await keys.create({ name: 'k', scopes: [...BOTH], expiresAt: null });
      const used = () => {
        const auth = keys.authenticate(secret);
        if (!auth.ok) throw new Error(auth.reason);
        keys.recordUse(auth.key);
      };
      const stored = async () => {
        await t.settled();
        return (await t.row(key.id))!.last_used_at;
      };
      const first = clock.now();
      used();
      expect(keys.get(key.id)!.last_used_at).toBe(first);
      expect(await stored()).toBe(first);
      clock.advance(TOUCH_EVERY_MS - 1);
      used();
      expect(keys.get(key.id)!.last_used_at).toBe(first);
      expect(await stored()).toBe(first);
      clock.advance(1);
      used();
      expect(keys.get(key.id)!.last_used_at).toBe(first + TOUCH_EVERY_MS);
      expect(await stored()).toBe(first + TOUCH_EVERY_MS);
      expect((await t.another()).keys.get(key.id)!.last_used_at).toBe(first + TOUCH_EVERY_MS);
    });
  });

  describe(`${name} accounts (the AccountStore contract)`, () => {
    let t: KeysUnderTest;
    let accounts: AccountStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock();
      t = await makeStores(clock);
      accounts = t.accounts;
    });
    afterEach(() => t.close());

    it('creates accounts and lists them oldest first, here and to another store on the database', async () => {
      const a = await accounts.create({ name: 'acme', retentionDays: 30 });
      expect(a).toEqual({ id: expect.stringMatching(/^acct_/), name: 'acme', retention_days: 30, disabled_at: null, created_at: clock.now() });
      clock.advance(1);
      const b = await accounts.create({ name: 'globex', retentionDays: null });
      expect(accounts.get(a.id)).toEqual(a);
      expect(accounts.list()).toEqual([a, b]);
      expect((await t.another()).accounts.list()).toEqual([a, b]);
      expect(accounts.get('acct_nope')).toBeUndefined();
    });

    it('refuses a retention out of range, and writes nothing', async () => {
      for (const bad of [0, 2.5, 3_651]) {
        await expect(accounts.create({ name: 'x', retentionDays: bad })).rejects.toThrow(RangeError);
      }
      const a = await accounts.create({ name: 'a', retentionDays: 7 });
      await expect(accounts.setRetention(a.id, 0)).rejects.toThrow(/from 1 to 3650/);
      expect(accounts.list()).toEqual([a]);
      expect((await t.another()).accounts.list()).toEqual([a]);
    });

    it('sets a retention, or says there is no such account', async () => {
      const a = await accounts.create({ name: 'a', retentionDays: 7 });
      expect(await accounts.setRetention(a.id, null)).toBe(true);
      expect(accounts.get(a.id)!.retention_days).toBeNull();
      expect(await accounts.setRetention(a.id, 90)).toBe(true);
      expect(accounts.get(a.id)!.retention_days).toBe(90);
      expect((await t.another()).accounts.get(a.id)!.retention_days).toBe(90);
      expect(await accounts.setRetention('acct_nope', 1)).toBe(false);
    });

    it('disables an account once, or says there is no such account', async () => {
      const a = await accounts.create({ name: 'a', retentionDays: null });
      clock.advance(5_000);
      expect(await accounts.disable(a.id)).toBe(true);
      expect(accounts.get(a.id)!.disabled_at).toBe(clock.now());
      clock.advance(5_000);
      expect(await accounts.disable(a.id)).toBe(false);
      expect(accounts.get(a.id)!.disabled_at).toBe(clock.now() - 5_000);
      expect((await t.another()).accounts.get(a.id)!.disabled_at).toBe(clock.now() - 5_000);
      expect(await accounts.disable('acct_nope')).toBe(false);
    });

    it('tells its listeners of its own changes, until they stop listening', async () => {
      let heard = 0;
      const stop = accounts.onChange(() => heard++);
      const a = await accounts.create({ name: 'a', retentionDays: null });
      expect(heard).toBe(1);
      await accounts.disable(a.id);
      expect(heard).toBe(2);
      stop();
      await accounts.setRetention(a.id, 3);
      expect(heard).toBe(2);
    });

    it("reads another store's change on invalidate, and tells its listeners", async () => {
      const a = await accounts.create({ name: 'a', retentionDays: null });
      const heard = new Promise<void>((resolve) => accounts.onChange(resolve));
      await (await t.another()).accounts.disable(a.id);
      accounts.invalidate();
      await heard;
      expect(accounts.get(a.id)!.disabled_at).toBe(clock.now());
    });
  });
}
