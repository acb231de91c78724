/**
 * The data dir is its owner's only: the folder 0700 and the database with its -wal and
 * -shm files 0600, also when the folder existed before with a looser mode, and also after
 * an older version left them readable by others.
 */
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, testDataDir, type TestService } from '../support/harness.js';

const mode = (path: string) => statSync(path).mode & 0o777;
const DB_FILES = ['chatbridge.db', 'chatbridge.db-wal', 'chatbridge.db-shm'];

describe('files at rest', () => {
  let umask: number;
  let t: TestService | null = null;
  beforeEach(() => {
    // The usual umask: files 0644 and folders 0755 unless the code says otherwise.
    umask = process.umask(0o022);
  });
  afterEach(async () => {
    await t?.stop();
    t = null;
    process.umask(umask);
  });

  it('a data dir that already existed 0755 gets 0700, and the database files are 0600', async () => {
    const dataDir = testDataDir();
    chmodSync(dataDir, 0o755);
    t = await startTestService({ dataDir, agents: { chatgpt: 1 } });
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'hi' } })).status).toBe(200);
    expect(mode(dataDir).toString(8)).toBe('700');
    for (const f of DB_FILES) expect(mode(join(dataDir, f)).toString(8), f).toBe('600');
    expect(mode(join(dataDir, 'admin-token')).toString(8)).toBe('600');
    expect(mode(join(dataDir, 'server.json')).toString(8)).toBe('600');
  });

  it('files an older version left readable by others are made private again at the next start', async () => {
    const dataDir = testDataDir();
    t = await startTestService({ dataDir });
    await t.stop();
    t = null;
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'chatbridge.db'), 0o644);
    t = await startTestService({ dataDir });
    expect(mode(dataDir).toString(8)).toBe('700');
    for (const f of DB_FILES) expect(mode(join(dataDir, f)).toString(8), f).toBe('600');
  });
});
