/**
 * Settings, the signing secret, per-key request limits and the install profile on PostgreSQL:
 * the contracts both implementations pass, then what only several instances on one database
 * can show (two "instances" are two pools, each with its TableChanges listening).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PgRateLimiter } from '../../main/storage/postgres/rate-limit.js';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { connect, PgConnectError } from '../../main/storage/postgres/connect.js';
import { TableChanges } from '../../main/storage/postgres/table-changes.js';
import { PgSettingsStore } from '../../main/storage/postgres/settings-store.js';
import { PgAccountSecrets } from '../../main/storage/postgres/account-secrets.js';
import { PgSigningSecret } from '../../main/storage/postgres/signing-secret.js';
import { accountSecretsContract } from './account-secrets-contract.js';
import { ManualClock } from '../support/manual-clock.js';
import { until } from '../support/until.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';
import { rateLimitContract } from './rate-limit-contract.js';
import { settingsContract } from './settings-contract.js';
import { signingSecretContract } from './signing-secret-contract.js';
import { claimDatabaseProfile } from '../../main/storage/postgres/profile.js';

let postgres: MigratedCluster;
beforeAll(async () => {
  postgres = await startMigratedCluster();
});
afterAll(() => postgres?.cluster.stop());

/** One instance's share of the database: its pool and its TableChanges, listening. */
interface Instance {
  pool: pg.Pool;
  changes: TableChanges;
  errors: Error[];
  settings(): Promise<PgSettingsStore>;
  secret(): Promise<PgSigningSecret>;
}

const opened: Instance[] = [];
async function closeAll(): Promise<void> {
  await Promise.all(
    opened.splice(0).map(async (i) => {
      i.changes.close();
      await i.pool.end();
    }),
  );
}

async function instance(url: string, { listen = true } = {}): Promise<Instance> {
  const pool = await connect(url, { max: 4 });
  const changes = new TableChanges(pool);
  const errors: Error[] = [];
  const made: Instance = {
    pool,
    changes,
    errors,
    async settings() {
      const store = new PgSettingsStore(pool, changes, (e) => errors.push(e));
      await store.load();
      return store;
    },
    async secret() {
      const secret = new PgSigningSecret(pool, changes, randomIds, systemClock, (e) => errors.push(e));
      await secret.load();
      return secret;
    },
  };
  opened.push(made);
  // Listening before loading: a change made in between is heard, not lost.
  if (listen) await changes.listen();
  return made;
}

settingsContract('PostgreSQL', async () => {
  const url = await postgres.newDatabase();
  // Not listening: another store's change reaches it only through invalidate(), which the contract tests.
  const here = await instance(url, { listen: false });
  return {
    store: await here.settings(),
    another: async () => (await instance(url)).settings(),
    close: closeAll,
  };
});

signingSecretContract('PostgreSQL', async () => {
  const url = await postgres.newDatabase();
  return { open: async () => (await instance(url)).secret(), close: closeAll };
});

accountSecretsContract('PostgreSQL', async () => {
  const url = await postgres.newDatabase();
  return { open: async () => new PgAccountSecrets((await instance(url, { listen: false })).pool, randomIds, systemClock), close: closeAll };
});

rateLimitContract('PostgreSQL', async () => {
  const here = await instance(await postgres.newDatabase());
  return {
    limiter: async (clock, budget, perMinute) => new PgRateLimiter(here.pool, clock, budget, perMinute),
    close: closeAll,
  };
});

describe('PostgreSQL settings: two instances on one database', () => {
  afterEach(closeAll);

  it("hears another instance's change and tells its listeners, with the value already in get()", async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await (await instance(url)).settings(), await (await instance(url)).settings()];
    const seen: boolean[] = [];
    const heard = new Promise<void>((resolve) =>
      b.onChange(() => {
        seen.push(b.get().paused);
        resolve();
      }),
    );
    await a.setPaused(true);
    await heard;
    expect(seen).toEqual([true]);
    expect(b.get()).toEqual(a.get());
  });

  it("keeps both of two provider caps set at the same moment on two instances", async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await (await instance(url)).settings(), await (await instance(url)).settings()];
    for (let round = 1; round <= 20; round++) {
      await Promise.all([a.setProviderCap('chatgpt', round), b.setProviderCap('claude', round), a.setGlobalCap(round)]);
    }
    const expected = { chatgpt: 20, claude: 20, gemini: null };
    // Each instance hears the other's last write by a notice, which may come after its own
    // write was read back: B's last claude cap can reach A a moment after the loop.
    await until(() => a.get().providerCaps.claude === 20, 15_000, 'A to hear the last claude cap');
    expect(a.get().providerCaps).toMatchObject(expected);
    await until(() => b.get().providerCaps.chatgpt === 20, 15_000, 'B to hear the last chatgpt cap');
    expect(b.get().providerCaps).toMatchObject(expected);
    const stored = await opened[0]!.pool.query(`SELECT value FROM settings WHERE name = 'providerCaps'`);
    expect(stored.rows[0].value).toEqual({ chatgpt: 20, claude: 20 });
  });
});

describe('PostgreSQL signing secret: several instances', () => {
  afterEach(closeAll);

  it('ends with one secret when five instances start together on an empty database', async () => {
    const url = await postgres.newDatabase();
    const instances = await Promise.all(Array.from({ length: 5 }, () => instance(url)));
    const secrets = await Promise.all(instances.map((i) => i.secret()));
    const distinct = new Set(secrets.map((s) => s.get()));
    expect(distinct.size).toBe(1);
    const rows = await instances[0]!.pool.query(`SELECT secret FROM webhook_signing_secret`);
    expect(rows.rows).toEqual([{ secret: [...distinct][0] }]);
  });

  it('signs on B with the secret A rotated to, once B hears of it', async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await (await instance(url)).secret(), await (await instance(url)).secret()];
    expect(b.get()).toBe(a.get());
    const rotated = await a.rotate();
    const heardAfter = performance.now();
    await until(() => b.get() === rotated, 15_000, "B to sign with A's new secret");
    console.log(`B signed with A's rotated secret ${Math.round(performance.now() - heardAfter)} ms after the rotation committed`);
    expect(opened.flatMap((i) => i.errors)).toEqual([]);
  });
});

describe('PostgreSQL request limits: instances share one budget', () => {
  afterEach(closeAll);

  it("gives a key exactly its budget over two instances taking at once, and one request per interval after", async () => {
    const url = await postgres.newDatabase();
    const clock = new ManualClock();
    const [a, b] = [new PgRateLimiter((await instance(url)).pool, clock, 'write', 600), new PgRateLimiter((await instance(url)).pool, clock, 'write', 600)];
    const answers = await Promise.all(Array.from({ length: 700 }, (_, i) => (i % 2 ? a : b).take('key_1')));
    expect(answers.filter((w) => w === 0)).toHaveLength(600);
    expect(answers.filter((w) => w > 0).every((w) => w === 1)).toBe(true);
    clock.advance(100);
    const next = await Promise.all([a.take('key_1'), b.take('key_1'), a.take('key_1'), b.take('key_1')]);
    expect(next.filter((w) => w === 0)).toHaveLength(1);
  });

  it('sends one statement per request through the pool, no transaction (bench/request-limits.ts measures its cost)', async () => {
    const here = await instance(await postgres.newDatabase());
    const limiter = new PgRateLimiter(here.pool, new ManualClock(), 'read', 2);
    const sent: string[] = [];
    const query = here.pool.query.bind(here.pool);
    here.pool.query = ((sql: string, ...rest: unknown[]) => {
      sent.push(sql);
      return (query as (...a: unknown[]) => unknown)(sql, ...rest);
    }) as typeof here.pool.query;
    const waits = await Promise.all([0, 1, 2].map(() => limiter.take('key_1')));
    expect(waits.sort((x, y) => x - y)).toEqual([0, 0, 30]);
    // A transaction would take a client of its own (pool.connect) and send BEGIN, the statement and COMMIT there.
    expect(sent).toHaveLength(3);
  });
});

describe('the install profile of a shared database', () => {
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
    pool = undefined;
    await closeAll();
  });

  it('belongs to the profile it was first served in, and refuses the other in one line', async () => {
    const url = await postgres.newDatabase();
    pool = await connect(url, { max: 2 });
    await claimDatabaseProfile(pool, 'hosted');
    await claimDatabaseProfile(pool, 'hosted');
    const database = new URL(url).pathname.slice(1);
    const refused = await claimDatabaseProfile(pool, 'personal').catch((e: Error) => e);
    expect(refused).toBeInstanceOf(PgConnectError);
    expect((refused as Error).message).toBe(
      `The database ${database} belongs to the hosted profile; serve it with --profile hosted, or use another --database for personal.`,
    );
    // The profile is not a setting: the settings read past it.
    expect((await (await instance(url)).settings()).get().rotation).toBe('round_robin');
  });

  it('lets one of two instances starting together with different profiles have the database', async () => {
    const url = await postgres.newDatabase();
    const [a, b] = [await instance(url), await instance(url)];
    const results = await Promise.allSettled([claimDatabaseProfile(a.pool, 'personal'), claimDatabaseProfile(b.pool, 'hosted')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refusal = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refusal.reason.message).toMatch(/belongs to the (personal|hosted) profile/);
  });
});
