/**
 * `chatbridge settings attachments` on a data dir: shows the limits on a job's files, lowers
 * them, goes back to the contract's with "default", and refuses a size it cannot take.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../support/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-settings-attachments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const settings = (...args: string[]) => runCommand(['settings', 'attachments', ...args, '--data-dir', dir], dir);

describe('chatbridge settings attachments', () => {
  it('shows, lowers and restores the limits; refuses a size over the contract or not a size', async () => {
    expect((await settings()).stdout).toBe('Files: at most 20 MiB a file and 50 MiB a job together (the most: 20 MiB and 50 MiB), at most 10 files a job.\n');
    const lowered = await settings('--max-file', '5MiB', '--max-total', '512KiB');
    expect(lowered.code, lowered.stderr).toBe(0);
    expect(lowered.stdout).toMatch(/^Files: at most 5 MiB a file and 512 KiB a job together/);
    expect((await settings()).stdout).toMatch(/^Files: at most 5 MiB a file and 512 KiB/);
    expect((await settings('--max-file', '1000')).stdout).toMatch(/^Files: at most 1000 bytes a file/);
    expect((await settings('--max-file', 'default', '--max-total', 'default')).stdout).toMatch(/^Files: at most 20 MiB a file and 50 MiB a job/);
    const over = await settings('--max-file', '21MiB');
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/from 1 to 20971520/);
    const junk = await settings('--max-total', 'lots');
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(/--max-total takes a size such as 5MiB/);
  });
});
