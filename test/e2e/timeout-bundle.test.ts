/**
 * An attempt that hangs until the per-attempt timeout keeps a diagnostic bundle of the page
 * as the timeout found it (the answer still streaming, its Stop control showing: taken
 * before the flow presses Stop), without the prompt; a cancelled attempt keeps none.
 * Real Chromium, the real flow, a simulated Claude.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleName, diagnosticsRoot, type DiagnosticManifest } from '../../main/core/diagnostics.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { SkippingClock } from '../support/skipping-clock.js';
import { until } from '../support/until.js';

describe('a hung attempt', () => {
  let e: E2E;
  /** The service's clock, which times attempts: the 5 s timeout is skipped, not sat out. */
  const clock = new SkippingClock();
  beforeAll(async () => {
    e = await startE2E('claude', 1, {}, { clock });
  }, 60_000);
  afterAll(async () => e?.stop());

  it('keeps a bundle of the page as the timeout found it, no word of the conversation in it; a cancelled attempt keeps none', async () => {
    // An earlier turn of the same conversation: its prompt and its answer (which quotes it) are on the page too.
    const earlier = await e.api('POST', '/v1/completions', { body: { provider: 'claude', prompt: 'Remember the word tangerine.' } });
    expect(earlier.status, JSON.stringify(earlier.body)).toBe(200);
    const prompt = 'Hang on the word periwinkle [[sim:hang]]';
    const r = await e.api('POST', '/v1/completions', {
      body: { provider: 'claude', prompt, timeout_ms: 5_000, wait: false, mode: 'continue', conversation_ref: earlier.body.conversation_ref },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const id = r.body.id as string;
    const root = diagnosticsRoot(e.dataDir);
    const first = join(root, bundleName(id, 1));
    await until(() => e.sim.log.sends.some((s) => s.prompt === prompt), 15_000, 'the prompt sent');
    clock.skip(5_000);
    // The bundle is written before the flow presses Stop: the Stop reached the site after its
    // manifest, the bundle's last file, was written. Compared by time, not by looking for the
    // manifest and then for no Stop: a busy machine may run the test's look after both.
    await until(() => existsSync(join(first, 'failure.json')), 15_000, 'the bundle');
    await until(() => e.sim.log.stops.length === 1, 15_000, 'the Stop press after the bundle');
    // The file's time is the kernel's coarse clock, never ahead of Date.now's; whole ms on both sides.
    expect(e.sim.log.stops[0]!.at).toBeGreaterThanOrEqual(Math.floor(statSync(join(first, 'failure.json')).mtimeMs));
    expect((await e.driver.attempts(id))[0]!.outcome).toBe('timed_out');
    // The job's next attempt hangs too: cancel it once it runs.
    await until(async () => (await e.driver.attempts(id)).length === 2 && e.sim.log.sends.filter((s) => s.prompt === prompt).length === 2, 15_000, 'the second attempt');
    expect((await e.api('DELETE', `/v1/completions/${id}`)).body.status).toBe('cancelled');
    await until(() => e.browserAgents[0]!.readiness() === 'idle' && !e.service.scheduler.isRunningOn(e.browserAgents[0]!.id), 15_000, 'the agent free again');

    const manifest = JSON.parse(readFileSync(join(first, 'failure.json'), 'utf8')) as DiagnosticManifest;
    expect(manifest).toMatchObject({ job_id: id, attempt: 1, provider: 'claude', failure: { kind: 'timed_out' } });
    expect(manifest.files.sort()).toEqual(['failure.json', 'page.html', 'screenshot.png']);
    // Taken while the page still worked on the answer: its Stop control was there, and the new turn.
    expect(manifest.cues.stop).not.toBeNull();
    expect(manifest.cues.assistantTurn).not.toBeNull();
    expect(readFileSync(join(first, 'screenshot.png')).subarray(1, 4).toString()).toBe('PNG');
    const html = readFileSync(join(first, 'page.html'), 'utf8');
    expect(html).toContain('data-testid="chat-input"');
    expect(html).not.toContain('periwinkle');
    expect(html).not.toContain('tangerine');
    expect(html).not.toContain('Simulated Claude');
    // The cancelled attempt left nothing.
    expect(existsSync(join(root, bundleName(id, 2)))).toBe(false);
    expect(readdirSync(root).filter((n) => n.startsWith(id))).toEqual([bundleName(id, 1)]);
  }, 60_000);
});
