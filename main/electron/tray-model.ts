import type { AgentState } from '../core/agent.js';

export interface TraySnapshot {
  agents: AgentState[];
  queueDepth: number;
  /** Dispatching paused from the tray, the dashboard or `chatbridge pause`. */
  paused: boolean;
}

/** The tray icon's look: what a glance at the menu bar should tell. */
export type TrayIcon = 'idle' | 'busy' | 'paused' | 'attention';

export type TrayAction = 'pause' | 'resume' | 'dashboard' | 'quit';
export type TrayItem = { kind: 'info'; label: string } | { kind: 'action'; action: TrayAction; label: string } | { kind: 'separator' };

export interface TrayView {
  icon: TrayIcon;
  tooltip: string;
  items: TrayItem[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What the tray shows for the service's state: agents busy and idle, the queue, whether
 * dispatching is paused, and which agents wait for the user (to log in again).
 */
export function trayView(s: TraySnapshot): TrayView {
  const count = (state: AgentState) => s.agents.filter((a) => a === state).length;
  const busy = count('busy');
  const idle = count('idle');
  const resting = count('resting');
  const needsLogin = count('needs_login');
  const failing = count('error');
  const agentsLine = s.agents.length === 0 ? 'No accounts yet' : `${busy} busy, ${idle} idle${resting ? `, ${resting} resting` : ''}`;
  const queueLine = `${s.queueDepth} queued`;
  const attention = [needsLogin ? `${plural(needsLogin, 'account')} to log in again` : '', failing ? `${plural(failing, 'agent')} in error` : ''].filter(Boolean);

  const icon: TrayIcon = s.paused ? 'paused' : attention.length ? 'attention' : busy > 0 ? 'busy' : 'idle';
  const tooltip = ['ChatBridge', s.paused ? 'paused' : '', agentsLine, queueLine, ...attention].filter(Boolean).join(' · ');
  return {
    icon,
    tooltip,
    items: [
      { kind: 'info', label: `${agentsLine} · ${queueLine}` },
      ...attention.map((label) => ({ kind: 'info' as const, label })),
      { kind: 'separator' },
      s.paused ? { kind: 'action', action: 'resume', label: 'Resume agents' } : { kind: 'action', action: 'pause', label: 'Pause agents' },
      { kind: 'action', action: 'dashboard', label: 'Open dashboard' },
      { kind: 'separator' },
      { kind: 'action', action: 'quit', label: 'Quit ChatBridge' },
    ],
  };
}
