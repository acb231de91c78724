import type { Db } from '../queue/db.js';
import { PROVIDERS, type Provider } from '../core/providers.js';

export const ROTATIONS = ['round_robin', 'least_used', 'ordered', 'random'] as const;
export type Rotation = (typeof ROTATIONS)[number];

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
}

/**
 * Prompts and answers are a person's chat history: kept 90 days unless they choose
 * otherwise, the same window as the usage history, which outlives them.
 */
export const DEFAULT_RETENTION_DAYS = 90;
export const MAX_RETENTION_DAYS = 3_650;

/**
 * Between two jobs a person reads the answer and types the next prompt: tens of seconds.
 * Back-to-back prompts at a machine's even pace are what the sites' "you are sending
 * messages too quickly" warnings and bans answer, so an agent pauses at least this long
 * (plus up to half of it again, at random) after each job. Hourly caps bound the volume;
 * this bounds the rhythm. `CHATBRIDGE_PAUSE_MS` replaces the default where only speed
 * matters (the test suite and the benchmarks set 0); a setting made here still wins.
 */
export const DEFAULT_PAUSE_MS = 10_000;
export const MAX_PAUSE_MS = 3_600_000;

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

const DEFAULTS: Settings = {
  globalCap: null,
  providerCaps: Object.fromEntries(PROVIDERS.map((p) => [p, null])) as Record<Provider, number | null>,
  rotation: 'round_robin',
  paused: false,
  retentionDays: DEFAULT_RETENTION_DAYS,
  pauseMs: defaultPauseMs(),
};

/**
 * Account-wide settings, shared through the database by the server and the command line.
 * Reads are cached; `invalidate` drops the cache when another process changed them.
 */
export class SettingsStore {
  private cached: Settings | null = null;
  private readonly listeners = new Set<() => void>();
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
    for (const l of [...this.listeners]) l();
  }

  /**
   * Hears that the settings may have changed: here (the tray, the dashboard) or, once the
   * service invalidates, by `chatbridge pause` and the other commands. Returns the function that stops it.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private load(): Settings {
    const stored = Object.fromEntries(
      (this.read.all() as { name: string; value: string }[]).map((r) => [r.name, JSON.parse(r.value)]),
    ) as Partial<Settings>;
    return {
      globalCap: stored.globalCap ?? DEFAULTS.globalCap,
      providerCaps: { ...DEFAULTS.providerCaps, ...stored.providerCaps },
      rotation: stored.rotation ?? DEFAULTS.rotation,
      paused: stored.paused ?? DEFAULTS.paused,
      // null is a choice (keep forever), so only a missing entry takes the default.
      retentionDays: stored.retentionDays === undefined ? DEFAULTS.retentionDays : stored.retentionDays,
      pauseMs: stored.pauseMs ?? DEFAULTS.pauseMs,
    };
  }

  setGlobalCap(cap: number | null): void {
    this.write.run('globalCap', JSON.stringify(cap));
    this.invalidate();
  }

  setProviderCap(provider: Provider, cap: number | null): void {
    this.db.transaction(() => {
      this.write.run('providerCaps', JSON.stringify({ ...this.load().providerCaps, [provider]: cap }));
    }).immediate();
    this.invalidate();
  }

  setRotation(rotation: Rotation): void {
    this.write.run('rotation', JSON.stringify(rotation));
    this.invalidate();
  }

  setPaused(paused: boolean): void {
    this.write.run('paused', JSON.stringify(paused));
    this.invalidate();
  }

  setPauseMs(ms: number): void {
    this.write.run('pauseMs', JSON.stringify(checkPause(ms)));
    this.invalidate();
  }

  setRetentionDays(days: number | null): void {
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
      throw new RangeError(`Retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or none`);
    }
    this.write.run('retentionDays', JSON.stringify(days));
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
