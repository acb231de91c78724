/**
 * What every store of the accounts' signing secrets must do (the AccountSecrets port), as one
 * suite each implementation runs: test/store/sqlite-settings.test.ts, test/store/pg-settings.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountSecrets } from '../../main/webhooks/account-secrets.js';

export interface AccountSecretsUnderTest {
  /** A store on the test's database; each call opens another, as another process would. */
  open(): Promise<AccountSecrets>;
  close(): Promise<void>;
}

const SHAPE = /^whsec_[0-9A-Za-z]{32}$/;

export function accountSecretsContract(name: string, makeDatabase: () => Promise<AccountSecretsUnderTest>): void {
  describe(`${name} accounts' signing secrets (the AccountSecrets port)`, () => {
    let t: AccountSecretsUnderTest;
    beforeEach(async () => {
      t = await makeDatabase();
    });
    afterEach(() => t.close());

    it("makes each account's own secret on first need and keeps it", async () => {
      const secrets = await t.open();
      const a = await secrets.of('acct_a');
      const b = await secrets.of('acct_b');
      expect(a).toMatch(SHAPE);
      expect(b).toMatch(SHAPE);
      expect(b).not.toBe(a);
      expect(await secrets.of('acct_a')).toBe(a);
      expect(await (await t.open()).of('acct_b')).toBe(b);
    });

    it('gives stores making the first secret of an account at once the same one', async () => {
      const [one, two] = [await t.open(), await t.open()];
      const made = await Promise.all([one.of('acct_a'), two.of('acct_a'), one.of('acct_a'), two.of('acct_a')]);
      expect(new Set(made).size).toBe(1);
    });

    it("rotates one account's secret, which every store reads from then on, and leaves the others' alone", async () => {
      const secrets = await t.open();
      const a = await secrets.of('acct_a');
      const b = await secrets.of('acct_b');
      const rotated = await secrets.rotate('acct_b');
      expect(rotated).toMatch(SHAPE);
      expect(rotated).not.toBe(b);
      expect(await (await t.open()).of('acct_b')).toBe(rotated);
      expect(await (await t.open()).of('acct_a')).toBe(a);
    });
  });
}
