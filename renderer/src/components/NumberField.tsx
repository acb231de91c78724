import { useEffect, useId, useState } from 'react';
import { useAction } from '../hooks.js';
import { Problem } from './Problem.js';

export interface NumberFieldProps {
  label: string;
  /** The saved value; null is what an empty field means (no cap, keep forever, the default). */
  value: number | null;
  /** The text the field shows for a value. */
  show: (value: number | null) => string;
  /** The value a (trimmed) text stands for, or undefined when the text is not valid. */
  read: (text: string) => number | null | undefined;
  placeholder: string;
  unit: string;
  /** What to enter instead, shown under an invalid text. */
  problem: string;
  inputMode?: 'numeric' | 'decimal';
  onSave: (value: number | null) => Promise<unknown>;
}

/** One setting typed as a number, saved with its own button; caps, retention and pauses are all this. */
export function NumberField({ label, value, show, read, placeholder, unit, problem, inputMode = 'numeric', onSave }: NumberFieldProps) {
  const id = useId();
  const [text, setText] = useState(show(value));
  // A change made elsewhere (another tab, the CLI) shows up unless the field is being edited.
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!editing) setText(show(value));
  }, [value, editing]);
  const save = useAction(onSave);
  const next = read(text.trim());
  const valid = next !== undefined;

  return (
    <form
      className="cap-field"
      onSubmit={async (e) => {
        e.preventDefault();
        if (next === undefined) return;
        await save.run(next);
        setEditing(false);
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode={inputMode}
        placeholder={placeholder}
        // As wide as its placeholder ("10 (default)"), which a fixed width would cut.
        size={Math.max(placeholder.length, 6)}
        value={text}
        aria-invalid={!valid}
        onChange={(e) => {
          setEditing(true);
          setText(e.target.value);
        }}
      />
      <span className="unit">{unit}</span>
      <button type="submit" disabled={!valid || next === value || save.busy}>
        Save
      </button>
      {!valid && <span className="problem inline">{problem}</span>}
      <Problem message={save.error} />
    </form>
  );
}

/** A whole number as text; empty for null. */
export const wholeNumber = (value: number | null): string => (value === null ? '' : String(value));
