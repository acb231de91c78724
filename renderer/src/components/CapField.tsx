import { useEffect, useId, useState } from 'react';
import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

/** An hourly cap: a number of jobs per rolling hour, or empty for no cap. */
export function CapField({ label, value, onSave }: { label: string; value: number | null; onSave: (cap: number | null) => Promise<unknown> }) {
  const id = useId();
  const [text, setText] = useState(value === null ? '' : String(value));
  // A change made elsewhere (another tab, the CLI) shows up unless the field is being edited.
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!editing) setText(value === null ? '' : String(value));
  }, [value, editing]);
  const save = useAction(onSave);
  const trimmed = text.trim();
  const valid = trimmed === '' || /^\d{1,7}$/.test(trimmed);
  const changed = (trimmed === '' ? null : Number(trimmed)) !== value;

  return (
    <form
      className="cap-field"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!valid) return;
        await save.run(trimmed === '' ? null : Number(trimmed));
        setEditing(false);
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="numeric"
        placeholder="no cap"
        value={text}
        aria-invalid={!valid}
        onChange={(e) => {
          setEditing(true);
          setText(e.target.value);
        }}
      />
      <span className="unit">per hour</span>
      <button type="submit" disabled={!valid || !changed || save.busy}>
        Save
      </button>
      {!valid && <span className="problem inline">Enter a whole number, or leave it empty for no cap.</span>}
      <Problem message={save.error} />
    </form>
  );
}
