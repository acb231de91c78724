import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROVIDERS, type Provider } from '../../main/core/providers.js';
import { atBaseUrl, BUILT_IN_PACKS, overriddenSite } from './index.js';
import { checkOverride, compileSite, InvalidPack } from './pack-schema.js';
import type { ProviderSite } from './site.js';

/** How the book tells what happened to an override: loaded, refused (and why), removed. */
export type SiteBookNote = { level: 'info' | 'warn'; message: string };

export interface SiteStatus {
  provider: Provider;
  version: number;
  checked: string;
  /** The override file merged in, if any. */
  override: string | null;
  /** Why an override file was refused (the built-in pack stays), if it was. */
  error: string | null;
}

/**
 * The selector packs in force: the built-in ones, each with a user's override from
 * `<overrides dir>/<provider>.json` merged over it role by role. An override is checked
 * before use (a bad file: one line in the log, and the built-in pack stays) and picked up
 * again whenever a file in the folder changes, without a restart. `baseUrls` points sites
 * elsewhere (the simulator).
 */
export class SiteBook {
  private sites = new Map<Provider, ProviderSite>();
  private readonly errors = new Map<Provider, string>();
  /** Each override file's text when last read (null: no file), so that a read of the same text changes and logs nothing. */
  private readonly texts = new Map<Provider, string | null>();
  private watcher: FSWatcher | null = null;
  private reloadTimer: NodeJS.Timeout | null = null;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly overridesDir: string | null,
    private readonly notes: (note: SiteBookNote) => void = () => {},
    private readonly baseUrls: Partial<Record<Provider, string>> = {},
  ) {
    for (const provider of PROVIDERS) this.sites.set(provider, this.builtIn(provider));
  }

  /** Reads the overrides there are, then follows the folder for changes. */
  async open(): Promise<void> {
    if (!this.overridesDir) return;
    await mkdir(this.overridesDir, { recursive: true, mode: 0o700 });
    await this.reload();
    try {
      this.watcher = watch(this.overridesDir, () => this.reloadSoon());
      this.watcher.on('error', () => this.reloadSoon());
    } catch (error) {
      this.notes({ level: 'warn', message: `Site pack overrides in ${this.overridesDir} are read at start only: ${(error as Error).message}` });
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
  }

  /** The site of a provider as it is now. */
  site(provider: Provider): ProviderSite {
    return this.sites.get(provider)!;
  }

  status(): SiteStatus[] {
    return PROVIDERS.map((provider) => {
      const site = this.site(provider);
      return { provider, version: site.version, checked: site.checked, override: site.override, error: this.errors.get(provider) ?? null };
    });
  }

  private builtIn(provider: Provider): ProviderSite {
    const site = compileSite(BUILT_IN_PACKS[provider]);
    const baseUrl = this.baseUrls[provider];
    return baseUrl ? atBaseUrl(site, baseUrl) : site;
  }

  /** Editors save in bursts (write, rename, chmod): one reload after the burst (in real time, as the file system's events come). */
  private reloadSoon(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = null;
      void this.reload();
    }, 100);
    this.reloadTimer.unref();
  }

  private reload(): Promise<void> {
    this.loading = this.loading.then(() => Promise.all(PROVIDERS.map((p) => this.load(p))).then(() => {}));
    return this.loading;
  }

  private async load(provider: Provider): Promise<void> {
    const file = join(this.overridesDir!, `${provider}.json`);
    const before = this.sites.get(provider)!;
    const hadError = this.errors.get(provider);
    const text = await readFile(file, 'utf8').catch(() => null);
    if (this.texts.has(provider) && this.texts.get(provider) === text) return;
    this.texts.set(provider, text);
    if (text === null) {
      if (before.override) this.notes({ level: 'info', message: `Site pack override ${file} removed: ${before.name} uses the built-in pack again.` });
      this.errors.delete(provider);
      this.sites.set(provider, this.builtIn(provider));
      return;
    }
    try {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new InvalidPack(`${file}: not JSON (${(error as Error).message})`);
      }
      const override = checkOverride(parsed, file);
      const site = overriddenSite(provider, override, file);
      const baseUrl = this.baseUrls[provider];
      this.sites.set(provider, baseUrl ? atBaseUrl(site, baseUrl) : site);
      this.errors.delete(provider);
      const roles = Object.keys(override.roles ?? {});
      const variants = (override.variants?.list ?? []).map((v) => v.id);
      const what = [...(roles.length ? [`roles: ${roles.join(', ')}`] : []), ...(variants.length ? [`variants: ${variants.join(', ')}`] : [])];
      this.notes({
        level: 'info',
        message: `Site pack override ${file} in force for ${site.name}${what.length ? ` (${what.join('; ')})` : ''}.`,
      });
    } catch (error) {
      if (!(error instanceof InvalidPack)) throw error;
      // The last good pack stays in force; say so once per distinct problem.
      this.errors.set(provider, error.message);
      if (hadError !== error.message) {
        this.notes({ level: 'warn', message: `Site pack override refused, ${before.name} keeps its current pack: ${error.message}` });
      }
    }
  }
}
