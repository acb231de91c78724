import { useEffect, useState } from 'react';
import type { AdminApi, DiagnosticBundleView } from '../api.js';
import { plainMessage } from '../api.js';
import { jobTime, localTimes } from '../format.js';
import { CueTable } from './SiteCheckResult.js';
import { Problem } from './Problem.js';

const SCREENSHOT = 'screenshot.png';

/**
 * Failures the page showed in one role of the pack (a notice, a wall, a card): for these, that
 * role's cue is what matters, and roles missing from a page showing it are normal. A changed
 * site, a timeout or a lost page is another matter: there every role without a cue is a lead.
 */
const SHOWN_BY: Record<string, { role: string; what: string }> = {
  rate_limited: { role: 'limitBanner', what: 'a usage limit' },
  logged_out: { role: 'loginWall', what: 'a login wall' },
  challenge: { role: 'challenge', what: 'a verification' },
  provider_error: { role: 'errorCard', what: 'an error notice' },
  rejected: { role: 'refusal', what: 'a refusal' },
};

/** The cue table's rows: for a failure the page showed, its role first and the roles it hides as normal. */
function cueRows(bundle: DiagnosticBundleView) {
  const shown = SHOWN_BY[bundle.failure.kind];
  const rows = Object.entries(bundle.cues).map(([role, cue]) => ({
    role,
    found: cue ? `#${cue.index + 1} ${cue.kind}: ${cue.css}` : null,
    ...(shown && !cue && role !== shown.role ? { note: `not shown (normal with ${shown.what})` } : {}),
  }));
  return shown ? [...rows.filter((r) => r.role === shown.role), ...rows.filter((r) => r.role !== shown.role)] : rows;
}

/**
 * What an agent kept of its page when an attempt failed: the failure, which cue found each
 * role, the screenshot and the files to download. Files come through the API with the
 * token (a plain link could not send it), then open from an object URL.
 */
export function DiagnosticBundle({ bundle, api }: { bundle: DiagnosticBundleView; api: AdminApi }) {
  const [error, setError] = useState<string | null>(null);
  const download = async (file: string) => {
    setError(null);
    try {
      const url = URL.createObjectURL(await api.diagnosticFile(bundle.name, file));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${bundle.name}-${file}`;
      link.click();
      // The click has started the download; the URL is not needed once it has.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(plainMessage(e));
    }
  };
  // Folded: a failed job's page lists a bundle per attempt, each a long table of cues.
  return (
    <details className="card stack" aria-label={`Diagnostics of attempt ${bundle.attempt}`}>
      <summary>
        Attempt {bundle.attempt}, {jobTime(bundle.at)}: <strong>{bundle.failure.kind}</strong> — {localTimes(bundle.failure.message)}
      </summary>
      <p className="muted">
        Pack v{bundle.pack.version}, checked {bundle.pack.checked}
        {bundle.pack.override ? `, with the override ${bundle.pack.override}` : ', no override'}
        {bundle.page_url ? ` · page ${bundle.page_url}` : ''}
      </p>
      <div className="two-col">
        <CueTable cues={cueRows(bundle)} />
        {bundle.files.includes(SCREENSHOT) && <Screenshot bundle={bundle.name} api={api} />}
      </div>
      <div className="inline-actions">
        {bundle.files.map((file) => (
          <button key={file} type="button" onClick={() => void download(file)}>
            Download {file}
          </button>
        ))}
      </div>
      <Problem message={error} />
    </details>
  );
}

function Screenshot({ bundle, api }: { bundle: string; api: AdminApi }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    let made: string | null = null;
    api.diagnosticFile(bundle, SCREENSHOT).then(
      (blob) => {
        if (!current) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      },
      (e: unknown) => current && setError(plainMessage(e)),
    );
    return () => {
      current = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [api, bundle]);
  if (error) return <Problem message={error} />;
  return url ? <img className="thumbnail" src={url} alt="The agent's page when the attempt failed (the conversation blurred)" /> : <p className="note">Loading the screenshot…</p>;
}
