import type { AdminState } from '../api.js';
import { providerName } from '../format.js';
import { Badge } from './Badge.js';

type Device = AdminState['status']['devices'][number];

const AGENT_TONES: Record<string, 'good' | 'busy' | 'warn' | 'bad' | 'quiet'> = {
  idle: 'good',
  busy: 'busy',
  resting: 'warn',
  paused: 'quiet',
  needs_login: 'bad',
  error: 'bad',
};

/**
 * The instances sharing one queue (serve --database), each with its agents: which machine
 * runs which account, and which are out of reach. The one showing this page comes first.
 * An agent is managed on the dashboard of the device that runs it.
 */
export function Devices({ devices }: { devices: Device[] }) {
  return (
    <section aria-labelledby="devices-title">
      <h2 id="devices-title">Devices</h2>
      <div className="cards">
        {devices.map((device, at) => (
          <article className={`card device${device.online || device.paused ? '' : ' offline'}`} key={`${device.name} ${device.base_url}`} aria-label={device.name}>
            <div className="agent-head">
              <h3>{device.name}</h3>
              {at === 0 && <span className="muted">this one</span>}
              <DeviceState device={device} />
            </div>
            <p className="device-url">{device.base_url ? <code>{device.base_url}</code> : <span className="muted">
                  no API (<code>--no-api</code>)
                </span>}</p>
            {device.agents.length === 0 ? (
              <p className="muted">No agents</p>
            ) : (
              <ul className="device-agents">
                {device.agents.map((agent) => (
                  <li key={agent.id}>
                    <span className="row-main">{agent.name}</span>
                    <span className="muted">{providerName(agent.provider)}</span>
                    <Badge tone={AGENT_TONES[agent.state] ?? 'quiet'}>{agent.state.replace('_', ' ')}</Badge>
                  </li>
                ))}
              </ul>
            )}
            {!device.online && !device.paused && device.agents.length > 0 && (
              <p className="note">Offline: its agents, as it last reported them, take no jobs until it is back.</p>
            )}
          </article>
        ))}
      </div>
    </section>
  );
}

function DeviceState({ device }: { device: Device }) {
  if (device.online) return <Badge tone="good">online</Badge>;
  if (device.paused) return <Badge tone="quiet">paused</Badge>;
  return <Badge tone="bad">offline</Badge>;
}
