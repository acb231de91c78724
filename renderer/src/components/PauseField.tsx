import { useEffect, useId, useState } from 'react';
import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

const MAX_SECONDS = 3_600;

/**
 * The least pause between an agent's jobs, in seconds (a guard against bans). `fallback`
 * is what an empty field means: the global setting's value, for an agent; none, globally.
 */
export function PauseField({
  label,
  value,
  fallback,
  onSave,
}: {
  label: string;
  value: number | null;
  fallback: number | null;
  onSave: (ms: number | null) => Promise<unknown>;
}) {
  const id = useId();
  const shown = (ms: number | null) => (ms === null ? '' : String(ms / 1_000));
  const [text, setText] = useState(shown(value));
  // A change made elsewhere (another tab, the CLI) shows up unless the field is being edited.
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!editing) setText(shown(value));
  }, [value, editing]);
  const save = useAction(onSave);
  const trimmed = text.trim();
  const seconds = Number(trimmed);
  const valid = (trimmed === '' && fallback !== null) || (/^\d+(\.\d{1,3})?$/.test(trimmed) && seconds <= MAX_SECONDS);
  const next = trimmed === '' ? null : Math.round(seconds * 1_000);
  return (
    <form
      className="cap-field"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!valid) return;
        await save.run(next);
        setEditing(false);
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        placeholder={fallback === null ? '' : `${fallback / 1_000} (default)`}
        value={text}
        aria-invalid={!valid}
        onChange={(e) => {
          setEditing(true);
          setText(e.target.value);
        }}
      />
      <span className="unit">s between jobs</span>
      <button type="submit" disabled={!valid || next === value || save.busy}>
        Save
      </button>
      {!valid && <span className="problem inline">Enter seconds from 0 to {MAX_SECONDS}{fallback !== null ? ', or leave it empty for the default' : ''}.</span>}
      <Problem message={save.error} />
    </form>
  );
}
