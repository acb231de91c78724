import { useState } from 'react';
import type { AdminApi } from '../api.js';
import { ConfirmButton } from '../components/ConfirmButton.js';
import { CopyButton } from '../components/CopyButton.js';
import { Problem } from '../components/Problem.js';
import { useAction } from '../hooks.js';
import { href } from '../route.js';

export function Webhooks({ api }: { api: AdminApi }) {
  return (
    <>
      <p className="lead">
        Send a job with <code>"callback_url": "https://…"</code> and ChatBridge POSTs the finished job to that address, retrying for about three
        hours until your receiver answers 2xx.
      </p>
      <SigningSecret api={api} />
      <section aria-labelledby="verify-title">
        <h2 id="verify-title">Checking a delivery</h2>
        <div className="card">
          <p>
            Each delivery carries <code>X-Service-Timestamp</code> (Unix seconds) and <code>X-Service-Signature</code>: <code>sha256=</code> and the
            hex HMAC-SHA256 of <code>&lt;timestamp&gt;.&lt;raw body&gt;</code>, keyed with the signing secret. Refuse timestamps more than 5 minutes
            off, and act on each job id once: a job can arrive twice.
          </p>
          <p>
            To see the delivery attempts of a job or send its webhook again, open the job on the <a href={href('jobs')}>Jobs</a> page.
          </p>
        </div>
      </section>
    </>
  );
}

function SigningSecret({ api }: { api: AdminApi }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [rotated, setRotated] = useState(false);
  const reveal = useAction(() => api.signingSecret().then(setSecret));
  const rotate = useAction(() =>
    api.rotateSigningSecret().then((next) => {
      setSecret(next);
      setRotated(true);
    }),
  );
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <div className="card stack">
        <div className="secret-line">
          <code data-testid="signing-secret">{secret ?? 'whsec_••••••••••••••••••••••••'}</code>
          {secret ? (
            <>
              <CopyButton text={secret} />
              <button type="button" onClick={() => setSecret(null)}>
                Hide
              </button>
            </>
          ) : (
            <button type="button" disabled={reveal.busy} onClick={() => reveal.run()}>
              Reveal
            </button>
          )}
        </div>
        {rotated && <p className="note">New secret in use: every delivery from now on, retries included, is signed with it. Update your receivers.</p>}
        <div>
          <ConfirmButton
            label="Rotate secret"
            confirmLabel="Rotate now"
            question="Receivers still checking the old secret will refuse deliveries until you update them."
            busy={rotate.busy}
            onConfirm={() => void rotate.run()}
          />
        </div>
        <Problem message={reveal.error ?? rotate.error} />
      </div>
    </section>
  );
}
