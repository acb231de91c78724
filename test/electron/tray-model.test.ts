import { describe, expect, it } from 'vitest';
import { trayView } from '../../main/electron/tray-model.js';

const actions = (v: ReturnType<typeof trayView>) => v.items.flatMap((i) => (i.kind === 'action' ? [i.action] : []));
const infos = (v: ReturnType<typeof trayView>) => v.items.flatMap((i) => (i.kind === 'info' ? [i.label] : []));

describe('trayView', () => {
  it('shows agents busy and idle and the queue depth, with pause, dashboard and quit', () => {
    const v = trayView({ agents: ['busy', 'idle', 'idle'], queueDepth: 4, paused: false });
    expect(v.icon).toBe('busy');
    expect(infos(v)).toEqual(['1 busy, 2 idle · 4 queued']);
    expect(actions(v)).toEqual(['pause', 'dashboard', 'quit']);
    expect(v.tooltip).toBe('ChatBridge · 1 busy, 2 idle · 4 queued');
  });

  it('offers resume while paused, and the icon says paused above all', () => {
    const v = trayView({ agents: ['needs_login', 'idle'], queueDepth: 0, paused: true });
    expect(v.icon).toBe('paused');
    expect(actions(v)).toEqual(['resume', 'dashboard', 'quit']);
    expect(v.tooltip).toContain('paused');
  });

  it('asks for attention when accounts must log in again or agents fail', () => {
    const v = trayView({ agents: ['needs_login', 'needs_login', 'error', 'idle'], queueDepth: 1, paused: false });
    expect(v.icon).toBe('attention');
    expect(infos(v)).toEqual(['0 busy, 1 idle · 1 queued', '2 accounts to log in again', '1 agent in error']);
  });

  it('is idle with nothing to do, and says when there are no accounts', () => {
    expect(trayView({ agents: ['idle'], queueDepth: 0, paused: false }).icon).toBe('idle');
    expect(infos(trayView({ agents: [], queueDepth: 0, paused: false }))).toEqual(['No accounts yet · 0 queued']);
  });
});
