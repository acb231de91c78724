import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ApiKey, KeyStore, NewKey } from './key-store.js';

/** What a kept key is made with; it never expires. */
export type KeptKeySpec = Omit<NewKey, 'expiresAt'>;

/**
 * An API key that stays the same from one run to the next: its secret is kept in a file of
 * the data folder, readable by its owner only, as the admin token is (the key store keeps
 * only its hash, like every key's). A new key replaces it, and every live key of its name is
 * revoked, when the one kept no longer works (revoked, expired, or made for another
 * database) or when asked to (`renew`). One request at a time: two that find no key make one.
 */
export class KeptKey {
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly keys: KeyStore,
    private readonly file: string,
    /** Asked only when a key is made (the hosted simulator's makes its account then). */
    private readonly spec: () => KeptKeySpec | Promise<KeptKeySpec>,
  ) {}

  /** The key and its secret; `made`: it is new (the one kept did not work, or `renew`). */
  get(renew = false): Promise<{ key: ApiKey; secret: string; made: boolean }> {
    const next = this.turn.then(() => this.keep(renew));
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async keep(renew: boolean): Promise<{ key: ApiKey; secret: string; made: boolean }> {
    const kept = readSecret(this.file);
    const auth = kept ? this.keys.authenticate(kept) : null;
    if (!renew && kept && auth?.ok) return { key: auth.key, secret: kept, made: false };
    const spec = await this.spec();
    for (const old of this.keys.list()) if (old.name === spec.name && !old.revoked_at) await this.keys.revoke(old.id);
    const { key, secret } = await this.keys.create({ ...spec, expiresAt: null });
    writeFileSync(`${this.file}.new`, `${secret}\n`, { mode: 0o600 });
    renameSync(`${this.file}.new`, this.file);
    return { key, secret, made: true };
  }
}

function readSecret(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
