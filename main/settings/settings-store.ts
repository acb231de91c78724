import { isProvider, PROVIDERS, type Provider } from '../core/providers.js';
import { MAX_PAUSE_MS, MAX_RETENTION_DAYS, type Rotation } from '../contract/enumerations.js';
import { ATTACHMENT_LIMITS } from '../core/attachments.js';

export interface Settings {
  /** Hourly caps; null means no cap. Per-agent caps live on the agent rows. */
  globalCap: number | null;
  providerCaps: Record<Provider, number | null>;
  rotation: Rotation;
  /** The agent runtime paused from the tray, the dashboard or `chatbridge pause`. */
  paused: boolean;
  /** Finished jobs lose their prompt and response this many days after they finished; null keeps them. */
  retentionDays: number | null;
  /** The least pause between an agent's jobs, in ms (jitter comes on top); an agent's own setting wins. */
  pauseMs: number;
  /**
   * (H) The variants (`provider/variant`) an account's jobs may ask for; none unless the
   * operator allows them: some are small quotas of the providers' plans (Pro, Research).
   */
  tenantVariants: string[];
  /** Hourly caps of jobs asking for a variant, by `provider/variant`; one not named has none. */
  variantCaps: Record<string, number>;
  /** Addresses and ranges (CIDR) no webhook is ever sent to, in either profile, whatever a name resolves to. */
  webhookDeny: string[];
  /**
   * POST /v1/chat/completions answers `stream: true` with chat.completion.chunk events; off
   * (the contract's 400) until the operator turns it on: a client whose stream is closed
   * cancels its job, which a client that only meant to look would not expect.
   */
  streaming: boolean;
  /**
   * The most a job's file may have, and its files together, in bytes: the contract's 20 MiB
   * and 50 MiB unless the operator lowered them (a small disk, a slow uplink to the sites).
   */
  attachmentMaxFileBytes: number;
  attachmentMaxTotalBytes: number;
}

/**
 * Prompts and answers are a person's chat history: kept 90 days unless they choose
 * otherwise, the same window as the usage history, which outlives them.
 */
export const DEFAULT_RETENTION_DAYS = 90;

/**
 * Between two jobs a person reads the answer and types the next prompt: tens of seconds.
 * Back-to-back prompts at a machine's even pace are what the sites' "you are sending
 * messages too quickly" warnings and bans answer, so an agent pauses at least this long
 * (plus up to half of it again, at random) after each job. Hourly caps bound the volume;
 * this bounds the rhythm. `CHATBRIDGE_PAUSE_MS` replaces the default where only speed
 * matters or no site can ban (the test suite, the benchmarks and `serve --simulate` set 0);
 * a setting made here still wins. Read when the settings are, so a process may set it first.
 */
export const DEFAULT_PAUSE_MS = 10_000;

function defaultPauseMs(): number {
  const fromEnv = process.env.CHATBRIDGE_PAUSE_MS;
  if (fromEnv === undefined || !/^\d+$/.test(fromEnv)) return DEFAULT_PAUSE_MS;
  return Math.min(Number(fromEnv), MAX_PAUSE_MS);
}

/** A pause is whole milliseconds from 0 (none) to MAX_PAUSE_MS. */
export function checkPause(ms: number): number {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_PAUSE_MS) {
    throw new RangeError(`A pause between jobs is from 0 to ${MAX_PAUSE_MS / 60_000} minutes, in whole milliseconds`);
  }
  return ms;
}

/** A variant as settings name it: `provider/variant`, as in a chat completion's model `service/provider/variant`. */
export function checkVariantName(name: string): string {
  const [provider, variant, ...rest] = name.split('/');
  if (rest.length > 0 || !provider || !isProvider(provider) || !variant || !/^[a-z0-9-]+$/.test(variant)) {
    throw new RangeError(`A variant is named PROVIDER/VARIANT (such as chatgpt/thinking), the provider one of ${PROVIDERS.join(', ')}, not "${name}"`);
  }
  return name;
}

/** A cap is a whole number of jobs an hour, 0 or more, or null (none). */
export function checkCap(cap: number | null): number | null {
  if (cap !== null && (!Number.isInteger(cap) || cap < 0)) throw new RangeError('An hourly cap is a whole number of jobs, 0 or more, or none');
  return cap;
}

/** A limit on files is whole bytes from 1 to the contract's own (20 MiB a file, 50 MiB together). */
export function checkAttachmentLimit(which: 'file' | 'total', bytes: number): number {
  const most = which === 'file' ? ATTACHMENT_LIMITS.maxFileBytes : ATTACHMENT_LIMITS.maxTotalBytes;
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > most) {
    throw new RangeError(`The limit on ${which === 'file' ? 'a file' : 'a job\'s files together'} is whole bytes from 1 to ${most} (${most / 1024 / 1024} MiB)`);
  }
  return bytes;
}

/** Retention is whole days from 1 to MAX_RETENTION_DAYS, or null (kept forever). */
export function checkRetention(days: number | null): number | null {
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
    throw new RangeError(`Retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or none`);
  }
  return days;
}

const DEFAULTS: Omit<Settings, 'pauseMs'> = {
  globalCap: null,
  providerCaps: Object.fromEntries(PROVIDERS.map((p) => [p, null])) as Record<Provider, number | null>,
  rotation: 'round_robin',
  paused: false,
  retentionDays: DEFAULT_RETENTION_DAYS,
  tenantVariants: [],
  variantCaps: {},
  webhookDeny: [],
  streaming: false,
  attachmentMaxFileBytes: ATTACHMENT_LIMITS.maxFileBytes,
  attachmentMaxTotalBytes: ATTACHMENT_LIMITS.maxTotalBytes,
};

/**
 * Account-wide settings, shared by the server, the dashboard and the command line: SQLite
 * in the data dir (storage/sqlite, SqliteSettingsStore) or PostgreSQL shared by several instances
 * (storage/postgres/settings-store.ts). Read on every request, so `get` answers from memory; a
 * setter resolves once its change is committed and `get` already shows it.
 */
export interface SettingsStore {
  get(): Settings;
  setGlobalCap(cap: number | null): Promise<void>;
  /** Changes one provider's cap; another provider's cap changed at the same time is kept. */
  setProviderCap(provider: Provider, cap: number | null): Promise<void>;
  setRotation(rotation: Rotation): Promise<void>;
  setPaused(paused: boolean): Promise<void>;
  /** Turns chat streaming (`stream: true`) on or off. */
  setStreaming(on: boolean): Promise<void>;
  /** Lowers (or restores) a limit on a job's files; rejects with a RangeError outside checkAttachmentLimit's range. */
  setAttachmentLimit(which: 'file' | 'total', bytes: number): Promise<void>;
  /** Rejects with a RangeError outside checkPause's range. */
  setPauseMs(ms: number): Promise<void>;
  /** Rejects with a RangeError outside checkRetention's range. */
  setRetentionDays(days: number | null): Promise<void>;
  /** (H) Replaces the variants tenants may ask for; rejects with a RangeError on a name checkVariantName refuses. */
  setTenantVariants(variants: readonly string[]): Promise<void>;
  /** Changes one variant's hourly cap (null: none); another variant's cap changed at the same time is kept. */
  setVariantCap(variant: string, cap: number | null): Promise<void>;
  /** Replaces the webhook deny-list; rejects with a RangeError on an entry checkDeniedRange refuses. */
  setWebhookDeny(ranges: readonly string[]): Promise<void>;
  /**
   * Hears that the settings may have changed: here (the tray, the dashboard), by another
   * instance, or by `chatbridge pause` and the other commands. Returns the function that stops it.
   */
  onChange(listener: () => void): () => void;
  /** Another process may have committed a change: read again, then tell the listeners. */
  invalidate(): void;
}

/** The settings as stored, one JSON value per name (the same rows in SQLite and PostgreSQL), with defaults for what is missing. */
export function settingsFrom(stored: Partial<Record<keyof Settings, unknown>>): Settings {
  const s = stored as Partial<Settings>;
  return {
    globalCap: s.globalCap ?? DEFAULTS.globalCap,
    providerCaps: { ...DEFAULTS.providerCaps, ...s.providerCaps },
    rotation: s.rotation ?? DEFAULTS.rotation,
    paused: s.paused ?? DEFAULTS.paused,
    streaming: s.streaming ?? DEFAULTS.streaming,
    attachmentMaxFileBytes: s.attachmentMaxFileBytes ?? DEFAULTS.attachmentMaxFileBytes,
    attachmentMaxTotalBytes: s.attachmentMaxTotalBytes ?? DEFAULTS.attachmentMaxTotalBytes,
    // null is a choice (keep forever), so only a missing entry takes the default.
    retentionDays: s.retentionDays === undefined ? DEFAULTS.retentionDays : s.retentionDays,
    pauseMs: s.pauseMs ?? defaultPauseMs(),
    tenantVariants: s.tenantVariants ?? DEFAULTS.tenantVariants,
    // Stored merged, a cap taken off is a null: it is no cap.
    variantCaps: Object.fromEntries(Object.entries(s.variantCaps ?? {}).filter(([, cap]) => cap !== null)),
    webhookDeny: s.webhookDeny ?? DEFAULTS.webhookDeny,
  };
}

