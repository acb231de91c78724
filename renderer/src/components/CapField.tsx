import { NumberField, wholeNumber } from './NumberField.js';

/** An hourly cap: a number of jobs per rolling hour, or empty for no cap. */
export function CapField({ label, value, onSave }: { label: string; value: number | null; onSave: (cap: number | null) => Promise<unknown> }) {
  return (
    <NumberField
      label={label}
      value={value}
      show={wholeNumber}
      read={(text) => (text === '' ? null : /^\d{1,7}$/.test(text) ? Number(text) : undefined)}
      placeholder="no cap"
      unit="per hour"
      problem="Enter a whole number, or leave it empty for no cap."
      onSave={onSave}
    />
  );
}
