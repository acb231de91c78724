import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CLI, listening, trackProcesses } from '../support/processes.js';

const procs = trackProcesses('cb-start-');

/** Whether this machine lacks the Electron download (an optional dependency), as CI does. */
function electronMissing(): boolean {
  try {
    createRequire(import.meta.url)('electron');
    return false;
  } catch {
    return true;
  }
}

describe('chatbridge start without the Electron runtime', () => {
  it('says so in one line naming every reason, then serves headless as `serve` does', async () => {
    const env = { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '' };
    const running = await listening(procs.launch([CLI, 'start', '--port', '0', '--data-dir', procs.tempDir()], env));
    const lines = running.out.stdout.split('\n');
    const reasons = electronMissing() ? 'the electron package or its binary is not installed; no display' : 'no display';
    expect(lines[0]).toBe(`Electron runtime unavailable (${reasons}): serving headless instead.`);
    expect(lines[1]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${running.url}/v1/status`)).status).toBe(401); // the API is up (and wants a key)
    running.child.kill('SIGTERM');
    expect((await running.closed).code).toBe(0);
  });
});
