import type { Provider } from '../../core/providers.js';
import { checkAttachmentLimit, checkCap, checkPause, checkRetention, checkVariantName, settingsFrom, type Settings, type SettingsStore } from '../../settings/settings-store.js';
import { checkDeniedRange } from '../../webhooks/public-address.js';
import type { Db } from './db.js';
import { Listeners } from '../../core/listeners.js';
import type { Rotation } from '../../contract/enumerations.js';

/**
 * The settings of one data dir. Reads are cached; `invalidate` drops the cache when another
 * process changed them (the service watches with watchExternalChanges).
 */
export class SqliteSettingsStore implements SettingsStore {
  private cached: Settings | null = null;
  private readonly listeners = new Listeners();
  private readonly read;
  private readonly write;

  constructor(private readonly db: Db) {
    this.read = db.prepare(`SELECT name, value FROM settings`);
    this.write = db.prepare(
      `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );
  }

  get(): Settings {
    return (this.cached ??= this.load());
  }

  /** Drops the cache (each setter does, and the service when another process committed) and tells the listeners. */
  invalidate(): void {
    this.cached = null;
    this.listeners.emit();
  }

  onChange(listener: () => void): () => void {
    return this.listeners.on(listener);
  }

  private load(): Settings {
    return settingsFrom(
      Object.fromEntries((this.read.all() as { name: string; value: string }[]).map((r) => [r.name, JSON.parse(r.value)])),
    );
  }

  async setGlobalCap(cap: number | null): Promise<void> {
    this.set('globalCap', cap);
  }

  async setProviderCap(provider: Provider, cap: number | null): Promise<void> {
    // Read and written under one write lock, so another process's change to another provider stays.
    this.db.transaction(() => {
      this.write.run('providerCaps', JSON.stringify({ ...this.load().providerCaps, [provider]: cap }));
    }).immediate();
    this.invalidate();
  }

  async setTenantVariants(variants: readonly string[]): Promise<void> {
    this.set('tenantVariants', [...new Set(variants.map(checkVariantName))].sort());
  }

  async setWebhookDeny(ranges: readonly string[]): Promise<void> {
    this.set('webhookDeny', [...new Set(ranges.map(checkDeniedRange))]);
  }

  async setVariantCap(variant: string, cap: number | null): Promise<void> {
    const name = checkVariantName(variant);
    checkCap(cap);
    // As setProviderCap; a cap taken off is stored as null, which settingsFrom drops.
    this.db.transaction(() => {
      this.write.run('variantCaps', JSON.stringify({ ...this.load().variantCaps, [name]: cap }));
    }).immediate();
    this.invalidate();
  }

  async setRotation(rotation: Rotation): Promise<void> {
    this.set('rotation', rotation);
  }

  async setPaused(paused: boolean): Promise<void> {
    this.set('paused', paused);
  }

  async setStreaming(on: boolean): Promise<void> {
    this.set('streaming', on);
  }

  async setAttachmentLimit(which: 'file' | 'total', bytes: number): Promise<void> {
    this.set(which === 'file' ? 'attachmentMaxFileBytes' : 'attachmentMaxTotalBytes', checkAttachmentLimit(which, bytes));
  }

  async setPauseMs(ms: number): Promise<void> {
    this.set('pauseMs', checkPause(ms));
  }

  async setRetentionDays(days: number | null): Promise<void> {
    this.set('retentionDays', checkRetention(days));
  }

  private set<K extends keyof Settings>(name: K, value: Settings[K]): void {
    this.write.run(name, JSON.stringify(value));
    this.invalidate();
  }
}

/**
 * Calls `onChange` when another process (the command line) commits to the database.
 * `PRAGMA data_version` changes only for other connections' commits and costs microseconds,
 * so checking it four times a second keeps "a running server honours the change within one
 * second" at no measurable idle cost.
 */
export function watchExternalChanges(db: Db, onChange: () => void, intervalMs = 250): () => void {
  const version = () => db.pragma('data_version', { simple: true }) as number;
  let last = version();
  const timer = setInterval(() => {
    const now = version();
    if (now !== last) {
      last = now;
      onChange();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
