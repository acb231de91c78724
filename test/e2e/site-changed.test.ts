/**
 * A provider's page that no longer has what the pack says: the attempt fails within
 * seconds naming the control, the job ends 502 PROVIDER_UI_CHANGED, the agent says why and
 * heals on its own once the page works again, and each failure leaves a diagnostic bundle
 * that shows the page's shape but not the conversation. Real Chromium, the real flow, a
 * simulated Claude whose pack is overridden the way a user's `sites/claude.json` would be.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnosticsRoot, type DiagnosticManifest } from '../../main/core/diagnostics.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { until } from '../support/until.js';

describe('a changed site', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('claude', 2);
  }, 60_000);
  afterAll(async () => e?.stop());

  const ask = (prompt: string) => e.api('POST', '/v1/completions', { body: { provider: 'claude', prompt } });

  it('fails fast with PROVIDER_UI_CHANGED naming the control, keeps a bundle of each attempt without the prompt, and heals when the page works again', async () => {
    // Every cue of the answer's turn gone, as after a redesign.
    e.override({ roles: { assistantTurn: [{ kind: 'structure', css: 'main article.turn-that-is-not-there' }] } });
    const secret = 'Tell me about the password hunter2 please';
    const started = Date.now();
    const r = await ask(secret);
    const took = Date.now() - started;
    expect(r.status, JSON.stringify(r.body)).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UI_CHANGED');
    expect(r.body.error.message).toMatch(/Claude: cannot find the answer/);
    const attempts = r.body.error.details.attempts as { error_code: string; agent_id: string; outcome: string }[];
    expect(attempts.map((a) => a.error_code)).toEqual(attempts.map(() => 'PROVIDER_UI_CHANGED'));
    expect(attempts.every((a) => a.outcome === 'failed')).toBe(true);
    // Two agents, one attempt each (no third: nobody left to try), each ~10 s after sending.
    expect(new Set(attempts.map((a) => a.agent_id)).size).toBe(attempts.length);
    expect(took).toBeLessThan(40_000);

    // The agents say why they are set aside.
    const agents = (await e.api('GET', '/v1/status')).body.devices[0].agents as { id: string; state: string }[];
    for (const a of attempts) expect(agents.find((x) => x.id === a.agent_id)!.state).toBe('error');
    expect(e.browserAgents.find((a) => a.id === attempts[0]!.agent_id)!.detail()).toMatch(/^site changed: Claude: cannot find the answer/);
    // …and when they look again on their own: the first look within 15 s of the failure.
    for (const a of attempts) expect(e.service.pool.nextCheckAt(a.agent_id)! - Date.now()).toBeLessThanOrEqual(15_000);

    // A bundle per attempt: screenshot, the DOM without the prompt, which cue matched.
    const root = diagnosticsRoot(e.dataDir);
    const bundles = readdirSync(root).filter((n) => n.startsWith(r.body.error.details.job_id));
    expect(bundles).toHaveLength(attempts.length);
    const manifest = JSON.parse(readFileSync(join(root, bundles[0]!, 'failure.json'), 'utf8')) as DiagnosticManifest;
    expect(manifest).toMatchObject({ provider: 'claude', failure: { kind: 'site_changed' }, pack: { override: 'test' } });
    expect(manifest.cues.assistantTurn).toBeNull();
    expect(manifest.cues.composer).toMatchObject({ index: 0, kind: 'testid' });
    const png = readFileSync(join(root, bundles[0]!, 'screenshot.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const html = readFileSync(join(root, bundles[0]!, 'page.html'), 'utf8');
    expect(html).toContain('data-testid="chat-input"');
    expect(html).not.toContain('hunter2');

    // The page works again (the override fixed or removed): the agents look again on their own and take jobs.
    e.override(null);
    for (const agent of e.browserAgents) await agent.recheck();
    await until(() => e.browserAgents.every((a) => a.readiness() === 'idle'), 15_000, 'the agents to heal');
    const again = await ask('And now?');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  }, 90_000);

  it('fails within seconds when the page has no composer any more', async () => {
    e.override({ roles: { composer: [{ kind: 'structure', css: 'form textarea.composer-that-is-not-there' }] } });
    const started = Date.now();
    await Promise.all(e.browserAgents.map((agent) => agent.recheck()));
    await until(() => e.browserAgents.every((a) => a.readiness() === 'error'), 15_000, 'both agents set aside');
    expect(Date.now() - started).toBeLessThan(25_000);
    for (const agent of e.browserAgents) expect(agent.detail()).toMatch(/Claude: cannot find the composer \(the page loaded without it\)/);
    // No agent can take it: with wait:false and no callback, the contract's 503 at once.
    const r = await e.api('POST', '/v1/completions', { body: { provider: 'claude', prompt: 'hello', wait: false } });
    expect(r.status).toBe(503);
    e.override(null);
    await Promise.all(e.browserAgents.map((agent) => agent.recheck()));
    await until(() => e.browserAgents.every((a) => a.readiness() === 'idle'), 15_000, 'both agents back');
  }, 60_000);
});
