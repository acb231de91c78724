/**
 * `caps`, `rotation`, `pause`, `resume`, `settings` and `webhooks secret` with --database:
 * the built CLI (needs dist/) changes the shared PostgreSQL, and an instance listening on it
 * (its settings and signing secret, as `serve --database` holds them) hears each change.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { TableChanges } from '../../main/storage/postgres/table-changes.js';
import { PgSettingsStore } from '../../main/storage/postgres/settings-store.js';
import type { Settings } from '../../main/settings/settings-store.js';
import { PgSigningSecret } from '../../main/storage/postgres/signing-secret.js';
import { runCommand } from '../support/processes.js';
import { until } from '../support/until.js';
import { startMigratedCluster, type MigratedCluster } from './migrated-cluster.js';

let postgres: MigratedCluster;
let url: string;
let pool: pg.Pool;
let changes: TableChanges;
let settings: PgSettingsStore;
let secret: PgSigningSecret;
/** Where a command would make a data dir if it fell back to one: it must stay empty. */
let home: string;
const errors: Error[] = [];

beforeAll(async () => {
  postgres = await startMigratedCluster();
  url = await postgres.newDatabase();
  pool = await connect(url, { max: 4 });
  changes = new TableChanges(pool);
  await changes.listen();
  settings = new PgSettingsStore(pool, changes, (e) => errors.push(e));
  secret = new PgSigningSecret(pool, changes, randomIds, systemClock, (e) => errors.push(e));
  await Promise.all([settings.load(), secret.load()]);
  home = mkdtempSync(join(tmpdir(), 'chatbridge-pg-cli-home-'));
});
afterAll(async () => {
  changes?.close();
  await pool?.end();
  await postgres?.cluster.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const chatbridge = (args: string[], env: Record<string, string> = {}) => runCommand(args, home, env);

/** Runs the command and waits until the listening instance's settings show what it changed. */
async function changed(args: string[], shows: (s: Settings) => boolean, env: Record<string, string> = {}): Promise<string> {
  const heard = new Promise<void>((resolve) => {
    const stop = settings.onChange(() => {
      if (shows(settings.get())) {
        stop();
        resolve();
      }
    });
  });
  const r = await chatbridge(args, env);
  expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
  await heard;
  return r.stdout;
}

describe('settings commands on the shared database', () => {
  it('caps set --provider and --global (also through CHATBRIDGE_DATABASE_URL) reach a running instance', async () => {
    expect(await changed(['caps', 'set', '--provider', 'claude', '--per-hour', '5', '--database', url], (s) => s.providerCaps.claude === 5)).toBe(
      'claude cap: 5 per hour.\n',
    );
    expect(await changed(['caps', 'set', '--global', '--per-hour', '9'], (s) => s.globalCap === 9, { CHATBRIDGE_DATABASE_URL: url })).toBe(
      'Global cap: 9 per hour.\n',
    );
    await changed(['caps', 'set', '--provider', 'claude', '--per-hour', 'none', '--database', url], (s) => s.providerCaps.claude === null);
    expect(settings.get()).toMatchObject({ globalCap: 9 });
  });

  it("refuses an agent's cap with --database in one line", async () => {
    const r = await chatbridge(['caps', 'set', '--agent', 'agt_1', '--per-hour', '1', '--database', url]);
    expect(r).toEqual({ code: 2, stdout: '', stderr: "chatbridge: caps set --agent takes the agent's data dir (--data-dir), not --database.\n" });
  });

  it('rotation set, pause and resume reach a running instance', async () => {
    expect(await changed(['rotation', 'set', 'ordered', '--database', url], (s) => s.rotation === 'ordered')).toBe('Rotation: ordered.\n');
    expect(await changed(['pause', '--database', url], (s) => s.paused)).toMatch(/^Paused: /);
    expect(await changed(['resume', '--database', url], (s) => !s.paused)).toMatch(/^Resumed: /);
  });

  it('settings retention and settings pause set and show the shared settings', async () => {
    expect(await changed(['settings', 'retention', '--days', '7', '--database', url], (s) => s.retentionDays === 7)).toMatch(/^Retention: 7 days\./);
    expect((await chatbridge(['settings', 'retention', '--database', url])).stdout).toMatch(/^Retention: 7 days\./);
    expect(await changed(['settings', 'pause', '--min', '12s', '--database', url], (s) => s.pauseMs === 12_000)).toMatch(
      /^Pause between jobs: at least 12 s/,
    );
    const refused = await chatbridge(['settings', 'retention', '--days', '0', '--database', url]);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringMatching(/from 1 to 3650/) });
  });
});

describe('webhooks secret on the shared database', () => {
  it('settings streaming on and off reach a running instance, and bare shows it', async () => {
    expect(await changed(['settings', 'streaming', 'on', '--database', url], (s) => s.streaming)).toMatch(/^Streaming: on\./);
    expect((await chatbridge(['settings', 'streaming', '--database', url])).stdout).toMatch(/^Streaming: on\./);
    expect(await changed(['settings', 'streaming', 'off', '--database', url], (s) => !s.streaming)).toMatch(/^Streaming: off\./);
    expect(await chatbridge(['settings', 'streaming', 'maybe', '--database', url])).toMatchObject({ code: 2 });
  });

  it("prints the instances' secret, and --rotate makes the one a running instance signs with", async () => {
    const shown = await chatbridge(['webhooks', 'secret', '--database', url]);
    expect(shown).toEqual({ code: 0, stdout: `${secret.get()}\n`, stderr: '' });
    const rotated = await chatbridge(['webhooks', 'secret', '--rotate', '--database', url]);
    expect(rotated).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Rotated: /) });
    const next = rotated.stdout.trim();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(shown.stdout.trim());
    await until(() => secret.get() === next, 15_000, 'the running instance to sign with the rotated secret');
  });
});

describe('with --database no command touches a data dir', () => {
  it('left the fallback data home empty, and the listening instance had no error', () => {
    expect(readdirSync(home)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
