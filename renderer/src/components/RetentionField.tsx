import { useEffect, useId, useState } from 'react';
import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

const MAX_DAYS = 3_650;

/** How long prompts and answers are kept: a number of days, or empty to keep them until deleted. */
export function RetentionField({ value, onSave }: { value: number | null; onSave: (days: number | null) => Promise<unknown> }) {
  const id = useId();
  const [text, setText] = useState(value === null ? '' : String(value));
  // A change made elsewhere (another tab, the CLI) shows up unless the field is being edited.
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!editing) setText(value === null ? '' : String(value));
  }, [value, editing]);
  const save = useAction(onSave);
  const trimmed = text.trim();
  const valid = trimmed === '' || (/^\d{1,4}$/.test(trimmed) && Number(trimmed) >= 1 && Number(trimmed) <= MAX_DAYS);
  const days = trimmed === '' ? null : Number(trimmed);

  return (
    <form
      className="cap-field"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!valid) return;
        await save.run(days);
        setEditing(false);
      }}
    >
      <label htmlFor={id}>Remove prompts and answers after</label>
      <input
        id={id}
        inputMode="numeric"
        placeholder="never"
        value={text}
        aria-invalid={!valid}
        onChange={(e) => {
          setEditing(true);
          setText(e.target.value);
        }}
      />
      <span className="unit">days</span>
      <button type="submit" disabled={!valid || days === value || save.busy}>
        Save
      </button>
      {!valid && <span className="problem inline">Enter a whole number of days from 1 to {MAX_DAYS}, or leave it empty to keep them.</span>}
      <Problem message={save.error} />
    </form>
  );
}
