/**
 * Profile H (api.md's (H) rules, decisions.md "Profile H") over real HTTP: the profile as a
 * setting stored with the data, and what it changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { AccountStore } from '../../main/keys/account-store.js';
import { DataDirError, openDatabase } from '../../main/queue/db.js';
import { Service } from '../../main/service.js';
import { startTestService, tempDataDir, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

let t: TestService | undefined;
/** Stops the service under test, once. */
async function stop(): Promise<void> {
  const running = t;
  t = undefined;
  await running?.stop();
}
afterEach(stop);

describe('the profile as a setting', () => {
  it('keeps a data dir in the profile it started with, and says so in one line', async () => {
    const dataDir = tempDataDir();
    try {
      t = await startTestService({ profile: 'hosted', dataDir });
      await stop();
      const refused = await Service.start({ dataDir, profile: 'personal' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DataDirError);
      expect((refused as Error).message).toMatch(/belongs to the hosted profile.*--profile hosted/);
      expect((refused as Error).message).not.toContain('\n');
      t = await startTestService({ profile: 'hosted', dataDir });
      expect(t.service.profile.name).toBe('hosted');
    } finally {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('treats a data dir with keys from before profiles as personal', async () => {
    const dataDir = tempDataDir();
    try {
      t = await startTestService({ dataDir });
      t!.service.db.prepare(`DELETE FROM settings WHERE name = 'profile'`).run();
      await stop();
      const refused = await Service.start({ dataDir, profile: 'hosted' }).catch((e: unknown) => e);
      expect((refused as Error).message).toMatch(/belongs to the personal profile/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('publishes the running profile in the OpenAPI document, priority range included', async () => {
    for (const [profile, max] of [
      ['personal', 100],
      ['hosted', 10],
    ] as const) {
      t = await startTestService({ profile });
      const doc = (await t!.api('GET', '/v1/openapi.json')).body;
      expect(doc.info.title).toContain(profile === 'hosted' ? 'Profile H' : 'Profile F');
      const body = doc.paths['/v1/completions'].post.requestBody.content['application/json'].schema;
      expect(body.properties.priority).toMatchObject({ minimum: -10, maximum: max, default: 0 });
      const job = doc.paths['/v1/completions/{id}'].get.responses['200'].content['application/json'].schema;
      expect('content_pruned_at' in job.properties).toBe(profile === 'hosted');
      await stop();
    }
  });
});

const queued = { wait: false, callback_url: 'https://127.0.0.1:9/hook' };

/** What `chatbridge accounts …` does: another connection to the data dir, which the service hears within a second. */
function asTheCommandLine<T>(dataDir: string, work: (accounts: AccountStore) => T): T {
  const db = openDatabase(dataDir);
  try {
    return work(new AccountStore(db, systemClock, randomIds));
  } finally {
    db.close();
  }
}

describe('accounts', () => {
  it('a disabled account: its keys get 401 and its queued jobs are cancelled; other accounts go on', async () => {
    t = await startTestService({ profile: 'hosted' });
    const other = t.createAccount('other');
    const mine = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued } });
    const theirs = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, key: other.key });
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    asTheCommandLine(t.dataDir, (accounts) => expect(accounts.disable(t!.account!)).toBe(true));
    await until(async () => (await t!.api('GET', '/v1/status')).status === 401, 5_000, 'the key to be refused');
    const refused = await t.api('GET', `/v1/completions/${mine.body.id}`);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    await until(() => t!.service.store.get(mine.body.id)?.status === 'cancelled', 5_000, 'the queued job to be cancelled');
    expect((await t.api('GET', `/v1/completions/${theirs.body.id}`, { key: other.key })).body.status).toBe('queued');
  });

  it('counts the 1 000-queued limit per account', async () => {
    t = await startTestService({ profile: 'hosted' });
    const keys = [t.key, t.createKey(['completions:write'])];
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        t!.api('POST', '/v1/completions', { body: { prompt: `p${i}`, ...queued }, key: keys[i % 2] }),
      ),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    const over = await t.api('POST', '/v1/completions', { body: { prompt: 'one more', ...queued } });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'FORBIDDEN', details: { limit: 1_000 } });
    const other = t.createAccount('other');
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'mine fits', ...queued }, key: other.key })).status).toBe(202);
  });

  it('keeps Idempotency-Keys per account', async () => {
    t = await startTestService({ profile: 'hosted' });
    const other = t.createAccount('other');
    const headers = { 'idempotency-key': 'same-key' };
    const a = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, headers });
    const b = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, headers, key: other.key });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.id).not.toBe(b.body.id);
    const again = await t.api('POST', '/v1/completions', { body: { prompt: 'p', ...queued }, headers, key: other.key });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(b.body.id);
  });
});
