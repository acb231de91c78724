import { useId, useState } from 'react';
import { changeAgent, changeSettings } from '../actions.js';
import type { AdminApi, AdminState, Rotation } from '../api.js';
import { CapField } from '../components/CapField.js';
import { Meter } from '../components/Meter.js';
import { Problem } from '../components/Problem.js';
import { providerName } from '../format.js';
import { useAction } from '../hooks.js';

/** Every strategy the server knows, with words; `satisfies` fails the build when one is added. */
const ROTATIONS = {
  round_robin: 'Round robin: take turns, agent after agent.',
  least_used: 'Least used: the agent with the fewest jobs this hour.',
  ordered: 'In order: always the first ready agent in the list.',
  random: 'Random: any ready agent.',
} satisfies Record<Rotation, string>;

export function Caps({ admin, api }: { admin: AdminState; api: AdminApi }) {
  const { settings, status } = admin;
  return (
    <>
      <p className="lead">
        Caps count the attempts started in the last 60 minutes (a retry counts again). A job waits in the queue while any cap that applies to it is reached: overall, its
        provider's, or its agent's. Leave a field empty for no cap.
      </p>

      <section aria-labelledby="global-cap">
        <h2 id="global-cap">Overall</h2>
        <div className="card">
          <CapField label="All agents together" value={settings.global_cap} onSave={(cap) => changeSettings(api, { global_cap: cap })} />
          <Meter used={status.global.used_this_hour} cap={status.global.rate_limit_per_hour} nextSlotAt={status.global.next_slot_at} />
        </div>
      </section>

      <section aria-labelledby="provider-caps">
        <h2 id="provider-caps">Per provider</h2>
        <div className="card stack">
          {Object.entries(settings.provider_caps).map(([provider, cap]) => {
            const usage = status.providers[provider];
            return (
              <div className="cap-row" key={provider}>
                <CapField label={providerName(provider)} value={cap} onSave={(next) => changeSettings(api, { provider_caps: { [provider]: next } })} />
                {usage && <Meter used={usage.used_this_hour} cap={usage.rate_limit_per_hour} nextSlotAt={usage.next_slot_at} />}
              </div>
            );
          })}
        </div>
      </section>

      <section aria-labelledby="agent-caps">
        <h2 id="agent-caps">Per agent</h2>
        {admin.agents.length === 0 ? (
          <p className="note">No agents yet: once you add an account, its cap can be set here or on the Agents page.</p>
        ) : (
          <div className="card stack">
            {admin.agents.map((agent) => (
              <div className="cap-row" key={agent.id}>
                <CapField
                  label={`${agent.name} (${providerName(agent.provider)})`}
                  value={agent.cap_per_hour}
                  onSave={(cap) => changeAgent(api, agent.id, { cap_per_hour: cap })}
                />
                <Meter used={agent.used_this_hour} cap={agent.cap_per_hour} nextSlotAt={agent.next_slot_at} />
              </div>
            ))}
          </div>
        )}
      </section>

      <RotationPicker rotation={settings.rotation} api={api} />
    </>
  );
}

function RotationPicker({ rotation, api }: { rotation: Rotation; api: AdminApi }) {
  const name = useId();
  // The choice shows at once; if the server refuses it, the saved strategy comes back.
  const [chosen, setChosen] = useState<Rotation | null>(null);
  const change = useAction(async (next: Rotation) => {
    setChosen(next);
    await changeSettings(api, { rotation: next }).finally(() => setChosen(null));
  });
  return (
    <section aria-labelledby="rotation">
      <h2 id="rotation">Rotation</h2>
      <fieldset className="card stack" disabled={change.busy}>
        <legend className="note">Which ready agent takes a job that names no provider:</legend>
        {(Object.entries(ROTATIONS) as [Rotation, string][]).map(([value, words]) => (
          <label className="choice" key={value}>
            <input type="radio" name={name} value={value} checked={(chosen ?? rotation) === value} onChange={() => change.run(value)} />
            {words}
          </label>
        ))}
        <Problem message={change.error} />
      </fieldset>
    </section>
  );
}
