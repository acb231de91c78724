import type { SiteCheckView } from '../api.js';
import { clockTime } from '../format.js';

const CHECK_WORDS: Record<string, string> = { missing: 'MISSING', not_shown: 'not shown now (normal)', needs_send: 'needs a probe prompt (chatbridge sites check --send)' };

/** The result of "Check site": the pack in force, any problem, and the cue table. */
export function SiteCheckResult({ check }: { check: SiteCheckView }) {
  const missing = check.roles.filter((r) => r.status === 'missing').map((r) => r.role);
  return (
    <div className="stack" aria-label="Site check">
      <p className={check.ok ? 'banner banner-good' : 'problem'} role="status">
        {check.ok ? `Every role of the ${check.site} pack was found.` : check.problem ?? `Missing: ${missing.join(', ')}.`}
      </p>
      <p className="muted">
        {clockTime(check.at)} · pack v{check.pack.version}, checked {check.pack.checked}
        {check.pack.override ? `, with the override ${check.pack.override}` : ', no override'}
        {check.pack.override_error ? ` · an override was refused: ${check.pack.override_error}` : ''}
      </p>
      {check.variants !== null && (
        <p>Models and modes this account offers: {check.variants.length > 0 ? check.variants.join(', ') : 'none of the pack’s'}</p>
      )}
      <CueTable
        cues={check.roles.map((r) => ({
          role: r.role,
          found: r.cue ? `#${r.cue.index + 1} ${r.cue.kind}: ${r.cue.css}` : null,
          ...(r.status === 'missing' ? {} : { note: CHECK_WORDS[r.status] }),
        }))}
      />
    </div>
  );
}

/** Role → the cue that found it, or "none". */
export function CueTable({ cues }: { cues: { role: string; found: string | null; note?: string }[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Role</th>
          <th scope="col">Found by</th>
        </tr>
      </thead>
      <tbody>
        {cues.map((c) => (
          <tr key={c.role}>
            <td>{c.role}</td>
            <td>{c.found ? <code>{c.found}</code> : <span className={c.note ? 'muted' : 'problem'}>{c.note ?? 'none'}</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
