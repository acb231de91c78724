import { changeSettings } from '../actions.js';
import type { AdminApi, AdminState } from '../api.js';
import { CopyButton } from '../components/CopyButton.js';
import { DesktopSettings } from '../components/DesktopSettings.js';
import { FileLimits } from '../components/FileLimits.js';
import { LogView } from '../components/LogView.js';
import { PauseField } from '../components/PauseField.js';
import { RetentionField } from '../components/RetentionField.js';
import { StreamingToggle } from '../components/StreamingToggle.js';
import { forgetToken } from '../token.js';

export function Settings({ admin, api }: { admin: AdminState; api: AdminApi }) {
  const baseUrl = admin.status.devices[0]?.base_url ?? window.location.origin;
  const port = new URL(baseUrl).port;
  return (
    <>
      <section aria-labelledby="server-title">
        <h2 id="server-title">This ChatBridge</h2>
        <dl className="facts card">
          <div>
            <dt>API address</dt>
            <dd>
              <code>{baseUrl}/v1</code> <CopyButton text={`${baseUrl}/v1`} />
            </dd>
          </div>
          <div>
            <dt>Port</dt>
            <dd>
              {port} <span className="muted">(change it by starting ChatBridge with <code>--port</code>)</span>
            </dd>
          </div>
          <div>
            <dt>Data folder</dt>
            <dd>
              <code>{admin.data_dir}</code> <span className="muted">(jobs, keys and settings; <code>--data-dir</code> picks another)</span>
            </dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd>{admin.version}</dd>
          </div>
        </dl>
      </section>
      <section aria-labelledby="pause-title">
        <h2 id="pause-title">Pause between jobs</h2>
        <div className="card stack">
          <PauseField label="Every agent" value={admin.settings.pause_ms} fallback={null} onSave={(ms) => changeSettings(api, { pause_ms: ms ?? 0 })} />
          <p className="note">
            A guard against bans: after each job an agent waits at least this long, plus up to half of it again at random, before its next one, as a
            person would between two prompts. 0 for none. An agent&apos;s own pause (Agents page) wins over this one.
          </p>
        </div>
      </section>
      <section aria-labelledby="retention-title">
        <h2 id="retention-title">Retention</h2>
        <div className="card stack">
          <RetentionField value={admin.settings.retention_days} onSave={(days) => changeSettings(api, { retention_days: days })} />
          <p className="note">
            {admin.settings.retention_days === null
              ? 'Prompts and answers are kept until you delete them (a job’s page has Delete).'
              : `A finished job’s prompt and answer are removed ${admin.settings.retention_days} day${admin.settings.retention_days === 1 ? '' : 's'} after it finished.`}{' '}
            Its timings, attempts and usage figures stay, and its conversation can still be continued. Webhook logs are kept 30 days.
          </p>
        </div>
      </section>
      <StreamingToggle on={admin.settings.streaming} onChange={(on) => changeSettings(api, { streaming: on })} />
      <FileLimits settings={admin.settings} onSave={(patch) => changeSettings(api, patch)} />
      <DesktopSettings agents={admin.agents} />
      <section aria-labelledby="logs-title">
        <h2 id="logs-title">Logs</h2>
        <LogView />
      </section>
      <section aria-labelledby="link-title">
        <h2 id="link-title">This dashboard link</h2>
        <p className="note">The link's token is kept for this browser tab only. On a shared computer, forget it when you are done.</p>
        <button
          type="button"
          onClick={() => {
            forgetToken();
            window.location.reload();
          }}
        >
          Forget the link in this tab
        </button>
      </section>
    </>
  );
}
