import { describe, expect, it, vi } from 'vitest';
import { CHANNELS, ipcRouter, type Handlers } from '../../main/electron/ipc-contract.js';
import { isDashboardUrl } from '../../main/electron/security.js';

function handlers(): Handlers {
  return {
    'agents:watch': vi.fn(async () => ({})),
    'agents:set-host': vi.fn(async () => ({})),
    'desktop:state': vi.fn(async () => ({ openAtLogin: false, hosts: { agt_1: 'view' as const } })),
    'desktop:set-open-at-login': vi.fn(async () => ({})),
  };
}

describe('ipcRouter', () => {
  const DASHBOARD = 'app://dashboard/index.html';

  it('runs the handler for a valid call from the dashboard, in an ok envelope', async () => {
    const h = handlers();
    const route = ipcRouter(h, isDashboardUrl);
    expect(await route('desktop:state', DASHBOARD, {})).toEqual({ ok: true, result: { openAtLogin: false, hosts: { agt_1: 'view' } } });
    expect(await route('agents:watch', DASHBOARD, { agentId: 'agt_1' })).toEqual({ ok: true, result: {} });
    expect(h['agents:watch']).toHaveBeenCalledWith({ agentId: 'agt_1' });
    expect(await route('agents:set-host', DASHBOARD, { agentId: 'agt_1', host: 'chrome' })).toMatchObject({ ok: true });
  });

  it('refuses any sender that is not the dashboard origin, before validating or handling', async () => {
    const h = handlers();
    const route = ipcRouter(h, isDashboardUrl);
    for (const sender of ['https://chatgpt.com/', 'file:///index.html', 'app://dashboard.evil/', 'app://evil/dashboard', '']) {
      expect(await route('agents:watch', sender, { agentId: 'agt_1' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect(h['agents:watch']).not.toHaveBeenCalled();
  });

  it('refuses unknown channels and payloads that fail their schema', async () => {
    const h = handlers();
    const route = ipcRouter(h, isDashboardUrl);
    const bad: [string, unknown][] = [
      ['agents:remove', {}],
      ['toString', {}],
      ['agents:add', { provider: 'claude' }],
      ['agents:watch', { agentId: 'agt_1', extra: 1 }],
      ['agents:watch', null],
      ['agents:watch', { agentId: '../../etc' }],
      ['agents:watch', { agentId: 'x'.repeat(65) }],
      ['agents:set-host', { agentId: 'agt_1', host: 'firefox' }],
      ['desktop:set-open-at-login', { enabled: 'yes' }],
      ['desktop:state', { anything: true }],
    ];
    for (const [channel, payload] of bad) {
      expect(await route(channel, DASHBOARD, payload), channel).toMatchObject({ ok: false, error: { code: 'invalid' } });
    }
    for (const c of CHANNELS) expect(h[c]).not.toHaveBeenCalled();
  });

  it('turns a handler failure into an error envelope with its message', async () => {
    const h = handlers();
    h['agents:watch'] = async () => {
      throw new Error('No agent agt_x');
    };
    const route = ipcRouter(h, isDashboardUrl);
    expect(await route('agents:watch', DASHBOARD, { agentId: 'agt_x' })).toEqual({ ok: false, error: { code: 'failed', message: 'No agent agt_x' } });
  });
});
