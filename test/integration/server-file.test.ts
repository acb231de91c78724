/**
 * server.json, which the command line reads to find the running server, names a server
 * only while its listener takes connections: it goes as the shutdown begins, not after the
 * agents and the database are closed, so a command meanwhile hears "not running" rather
 * than failing to reach an address that no longer answers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestService } from '../support/harness.js';

describe('server.json', () => {
  it('is written once the service listens and removed as soon as stop begins', async () => {
    const t = await startTestService({ agents: { claude: 1 } });
    const file = join(t.dataDir, 'server.json');
    expect(existsSync(file)).toBe(true);
    const stopping = t.stop();
    // Nothing of the shutdown has been awaited yet.
    expect(existsSync(file)).toBe(false);
    await stopping;
  });
});
