/**
 * Profile H (api.md's (H) rules, decisions.md "Profile H") over real HTTP: the profile as a
 * setting stored with the data, and what it changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { DataDirError } from '../../main/queue/db.js';
import { Service } from '../../main/service.js';
import { startTestService, tempDataDir, type TestService } from '../support/harness.js';

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
