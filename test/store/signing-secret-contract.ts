/**
 * What every signing secret store must do (the SigningSecret port), as one suite each
 * implementation runs: test/store/sqlite-settings.test.ts, test/store/pg-settings.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SigningSecret } from '../../main/webhooks/signing-secret.js';

export interface SecretUnderTest {
  /** A store on the test's database (loaded); each call opens another, as another process would. */
  open(): Promise<SigningSecret>;
  close(): Promise<void>;
}

const SHAPE = /^whsec_[0-9A-Za-z]{32}$/;

export function signingSecretContract(name: string, makeDatabase: () => Promise<SecretUnderTest>): void {
  describe(`${name} signing secret (the SigningSecret port)`, () => {
    let t: SecretUnderTest;
    beforeEach(async () => {
      t = await makeDatabase();
    });
    afterEach(() => t.close());

    it('makes one secret on first use and keeps it', async () => {
      const secrets = await t.open();
      const first = secrets.get();
      expect(first).toMatch(SHAPE);
      expect(secrets.get()).toBe(first);
      expect((await t.open()).get()).toBe(first);
    });

    it('rotates to a new secret, which every store reads from then on', async () => {
      const secrets = await t.open();
      const before = secrets.get();
      const after = await secrets.rotate();
      expect(after).toMatch(SHAPE);
      expect(after).not.toBe(before);
      expect(secrets.get()).toBe(after);
      expect((await t.open()).get()).toBe(after);
    });
  });
}
