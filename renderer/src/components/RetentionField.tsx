import { NumberField, wholeNumber } from './NumberField.js';

const MAX_DAYS = 3_650;

/** How long prompts and answers are kept: a number of days, or empty to keep them until deleted. */
export function RetentionField({ value, onSave }: { value: number | null; onSave: (days: number | null) => Promise<unknown> }) {
  return (
    <NumberField
      label="Remove prompts and answers after"
      value={value}
      show={wholeNumber}
      read={(text) => (text === '' ? null : /^\d{1,4}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_DAYS ? Number(text) : undefined)}
      placeholder="never"
      unit="days"
      problem={`Enter a whole number of days from 1 to ${MAX_DAYS}, or leave it empty to keep them.`}
      onSave={onSave}
    />
  );
}
