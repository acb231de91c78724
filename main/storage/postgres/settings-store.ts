import type pg from 'pg';
import type { Provider } from '../../core/providers.js';
import { checkDeniedRange } from '../../webhooks/public-address.js';
import { SharedTable } from './shared-table.js';
import type { TableChanges } from './table-changes.js';
import { checkAttachmentLimit, checkCap, checkPause, checkRetention, checkVariantName, settingsFrom, type Settings, type SettingsStore } from '../../settings/settings-store.js';
import type { Rotation } from '../../contract/enumerations.js';

const TABLE = 'settings';

/**
 * The settings of several instances on one PostgreSQL: the `settings` table (one JSON value
 * per name, as in SQLite), copied in memory on each instance and read again when any
 * instance or `chatbridge … --database` changes it.
 */
export class PgSettingsStore implements SettingsStore {
  private readonly table: SharedTable<Settings>;

  /**
   * `pool` and `changes` are shared with the other stores and closed by their owner.
   * `onError`: a read after another instance's change failed (the database out of reach).
   */
  constructor(pool: pg.Pool, changes: TableChanges, onError: (error: Error) => void) {
    this.table = new SharedTable(pool, changes, {
      table: TABLE,
      read: async () => {
        const { rows } = await pool.query<{ name: string; value: unknown }>(`SELECT name, value FROM settings`);
        return settingsFrom(Object.fromEntries(rows.map((r) => [r.name, r.value])));
      },
      same: (a, b) => JSON.stringify(a) === JSON.stringify(b),
      onError,
    });
  }

  /** Reads the table; call once before get(). */
  load(): Promise<void> {
    return this.table.load();
  }

  get(): Settings {
    return this.table.current;
  }

  /** Listens for changes made here or by any other instance. */
  onChange(listener: () => void): () => void {
    return this.table.onChange(listener);
  }

  /** Reads again; the listeners hear it if anything changed. */
  invalidate(): void {
    this.table.invalidate();
  }

  setGlobalCap(cap: number | null): Promise<void> {
    return this.set('globalCap', cap);
  }

  /**
   * Merges this provider's cap into the stored object in the one statement that writes it
   * (`||` on the row as locked), so a cap of another provider set at the same moment on
   * another instance is kept: the second writer waits for the first and merges into its row.
   */
  async setProviderCap(provider: Provider, cap: number | null): Promise<void> {
    await this.table.write(
      `INSERT INTO settings (name, value) VALUES ('providerCaps', jsonb_build_object($1::text, $2::jsonb))
       ON CONFLICT (name) DO UPDATE SET value = settings.value || excluded.value`,
      [provider, JSON.stringify(cap)],
    );
  }

  async setTenantVariants(variants: readonly string[]): Promise<void> {
    return this.set('tenantVariants', [...new Set(variants.map(checkVariantName))].sort());
  }

  async setWebhookDeny(ranges: readonly string[]): Promise<void> {
    return this.set('webhookDeny', [...new Set(ranges.map(checkDeniedRange))]);
  }

  /** Merged into the stored object as setProviderCap is; a cap taken off is stored as null (settingsFrom drops it). */
  async setVariantCap(variant: string, cap: number | null): Promise<void> {
    await this.table.write(
      `INSERT INTO settings (name, value) VALUES ('variantCaps', jsonb_build_object($1::text, $2::jsonb))
       ON CONFLICT (name) DO UPDATE SET value = settings.value || excluded.value`,
      [checkVariantName(variant), JSON.stringify(checkCap(cap))],
    );
  }

  setRotation(rotation: Rotation): Promise<void> {
    return this.set('rotation', rotation);
  }

  setPaused(paused: boolean): Promise<void> {
    return this.set('paused', paused);
  }

  setStreaming(on: boolean): Promise<void> {
    return this.set('streaming', on);
  }

  async setAttachmentLimit(which: 'file' | 'total', bytes: number): Promise<void> {
    return this.set(which === 'file' ? 'attachmentMaxFileBytes' : 'attachmentMaxTotalBytes', checkAttachmentLimit(which, bytes));
  }

  async setPauseMs(ms: number): Promise<void> {
    return this.set('pauseMs', checkPause(ms));
  }

  async setRetentionDays(days: number | null): Promise<void> {
    return this.set('retentionDays', checkRetention(days));
  }

  private async set<K extends keyof Settings>(name: K, value: Settings[K]): Promise<void> {
    await this.table.write(
      `INSERT INTO settings (name, value) VALUES ($1, $2::jsonb) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [name, JSON.stringify(value)],
    );
  }
}
