import { useEffect, useState } from 'react';
import type { AdminApi, DiagnosticBundleView } from '../api.js';
import { plainMessage } from '../api.js';
import { clockTime } from '../format.js';
import { CueTable } from './SiteCheckResult.js';
import { Problem } from './Problem.js';

const SCREENSHOT = 'screenshot.png';

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
  return (
    <div className="card stack" aria-label={`Diagnostics of attempt ${bundle.attempt}`}>
      <p>
        Attempt {bundle.attempt}, {clockTime(bundle.at)}: <strong>{bundle.failure.kind}</strong> — {bundle.failure.message}
      </p>
      <p className="muted">
        Pack v{bundle.pack.version}, checked {bundle.pack.checked}
        {bundle.pack.override ? `, with the override ${bundle.pack.override}` : ', no override'}
        {bundle.page_url ? ` · page ${bundle.page_url}` : ''}
      </p>
      <div className="two-col">
        <CueTable cues={Object.entries(bundle.cues).map(([role, cue]) => ({ role, found: cue ? `#${cue.index + 1} ${cue.kind}: ${cue.css}` : null }))} />
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
    </div>
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
