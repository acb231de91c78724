import type pg from 'pg';
import type { Provider } from '../../core/providers.js';
import { changeSharedTable, TableCopy } from './table-copy.js';
import type { TableChanges } from './table-changes.js';
import { checkPause, checkRetention, settingsFrom, type Rotation, type Settings, type SettingsStore } from '../../settings/settings-store.js';
import { Listeners } from '../../core/listeners.js';

const TABLE = 'settings';

/**
 * The settings of several instances on one PostgreSQL: the `settings` table (one JSON value
 * per name, as in SQLite), copied in memory on each instance and read again when any
 * instance or `chatbridge … --database` changes it.
 */
export class PgSettingsStore implements SettingsStore {
  private readonly listeners = new Listeners();
  private readonly copy: TableCopy<Settings>;

  /**
   * `pool` and `changes` are shared with the other stores and closed by their owner.
   * `onError`: a read after another instance's change failed (the database out of reach);
   * TableChanges reads everything again once it listens again.
   */
  constructor(
    private readonly pool: pg.Pool,
    changes: TableChanges,
    private readonly onError: (error: Error) => void,
  ) {
    this.copy = new TableCopy(
      async () => {
        const { rows } = await pool.query<{ name: string; value: unknown }>(`SELECT name, value FROM settings`);
        return settingsFrom(Object.fromEntries(rows.map((r) => [r.name, r.value])));
      },
      (now, before) => {
        if (before !== undefined && JSON.stringify(now) !== JSON.stringify(before)) this.tell();
      },
    );
    changes.on(TABLE, () => this.invalidate());
  }

  /** Reads the table; call once before get(). */
  load(): Promise<void> {
    return this.copy.refresh();
  }

  get(): Settings {
    return this.copy.current;
  }

  onChange(listener: () => void): () => void {
    return this.listeners.on(listener);
  }

  /** Reads again; the listeners hear it if anything changed. */
  invalidate(): void {
    this.copy.refresh().catch((error: unknown) => this.onError(error as Error));
  }

  setGlobalCap(cap: number | null): Promise<void> {
    return this.set('globalCap', cap);
  }

  /**
   * Merges this provider's cap into the stored object in the one statement that writes it
   * (`||` on the row as locked), so a cap of another provider set at the same moment on
   * another instance is kept: the second writer waits for the first and merges into its row.
   */
  setProviderCap(provider: Provider, cap: number | null): Promise<void> {
    return this.write(
      `INSERT INTO settings (name, value) VALUES ('providerCaps', jsonb_build_object($1::text, $2::jsonb))
       ON CONFLICT (name) DO UPDATE SET value = settings.value || excluded.value`,
      [provider, JSON.stringify(cap)],
    );
  }

  setRotation(rotation: Rotation): Promise<void> {
    return this.set('rotation', rotation);
  }

  setPaused(paused: boolean): Promise<void> {
    return this.set('paused', paused);
  }

  async setPauseMs(ms: number): Promise<void> {
    return this.set('pauseMs', checkPause(ms));
  }

  async setRetentionDays(days: number | null): Promise<void> {
    return this.set('retentionDays', checkRetention(days));
  }

  private set<K extends keyof Settings>(name: K, value: Settings[K]): Promise<void> {
    return this.write(
      `INSERT INTO settings (name, value) VALUES ($1, $2::jsonb) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [name, JSON.stringify(value)],
    );
  }

  /** One statement and the announcement, in one transaction; resolves once this instance's copy shows it. */
  private async write(sql: string, params: unknown[]): Promise<void> {
    await changeSharedTable(this.pool, TABLE, (c) => c.query(sql, params));
    await this.copy.refresh();
  }

  /**
   * A listener that throws must not turn a committed change into a failed setter, nor keep
   * the others from hearing it: its error is rethrown on its own, outside the read.
   */
  private tell(): void {
    this.listeners.emitApart();
  }
}
