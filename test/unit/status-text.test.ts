/** `chatbridge status` in words: a resting agent is counted and shown as resting, with until when. */
import { describe, expect, it } from 'vitest';
import type { Status } from '../../main/contract/schemas.js';
import { renderStatus } from '../../main/cli/status.js';
import { PROVIDERS } from '../../main/core/providers.js';

const usage = { rate_limit_per_hour: null, used_this_hour: 0, next_slot_at: null };
const agentSummary = (id: string, state: string, cooldown_until: string | null = null) => ({ id, name: id, provider: 'claude', state, cooldown_until, ...usage });

describe('status text', () => {
  it('counts resting agents apart from idle ones and says until when they rest, in local time', () => {
    const status: Status = {
      providers: Object.fromEntries(PROVIDERS.map((p) => [p, { agents_idle: p === 'claude' ? 1 : 0, agents_total: p === 'claude' ? 2 : 0, ...usage }])),
      queue: { depth: 0, oldest_queued_at: null },
      agents: { idle: 1, busy: 0, total: 2 },
      devices: [{ name: 'laptop', base_url: 'http://127.0.0.1:8787', online: true, paused: false, agents: [agentSummary('agt_a', 'idle'), agentSummary('agt_b', 'resting', '2026-11-21T21:54:00Z')] }],
      global: usage,
      rotation: 'round_robin',
    };
    const text = renderStatus(status, Date.parse('2026-11-21T21:50:00Z'));
    expect(text).toContain('Agents:  1 idle, 0 busy, 1 resting after a usage limit, 2 in all');
    expect(text).toMatch(/agt_b +claude +resting .* until \S+ \(in 4 min\)$/m);
    // Caps in words: "no cap" once, never "cap no cap".
    expect(text).toContain('Global:  0 used this hour, no cap\n');
    expect(text).toMatch(/agt_a +claude +idle +0 this hour \(no cap\)/);
    expect(text).not.toContain('cap no cap');
  });

  it('lists the devices sharing a database, and the agents of each under its name', () => {
    const status: Status = {
      providers: Object.fromEntries(PROVIDERS.map((p) => [p, { agents_idle: p === 'claude' ? 1 : 0, agents_total: p === 'claude' ? 1 : 0, ...usage }])),
      queue: { depth: 0, oldest_queued_at: null },
      agents: { idle: 1, busy: 0, total: 1 },
      devices: [
        { name: 'desk', base_url: 'http://desk.lan:8787', online: true, paused: false, agents: [] },
        { name: 'basement', base_url: null, online: true, paused: false, agents: [agentSummary('agt_a', 'idle')] },
        { name: 'laptop', base_url: 'http://laptop.lan:8787', online: false, paused: false, agents: [agentSummary('agt_b', 'resting', '2026-11-21T21:54:00Z')] },
      ],
      global: usage,
      rotation: 'round_robin',
    };
    const text = renderStatus(status, Date.parse('2026-11-21T21:50:00Z'));
    expect(text).toContain('ChatBridge at http://desk.lan:8787: running');
    expect(text).toContain('Devices: desk (online), basement (online), laptop (offline)');
    // The offline device's resting agent counts nowhere.
    expect(text).toContain('Agents:  1 idle, 0 busy, 1 in all');
    expect(text).toMatch(/agents on basement:\n  agt_a +claude +idle/);
    expect(text).toMatch(/agents on laptop \(offline\):\n  agt_b +claude +resting/);
    expect(text).not.toContain('No account is paired yet');
  });
});
