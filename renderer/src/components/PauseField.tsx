import { NumberField } from './NumberField.js';

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
  return (
    <NumberField
      label={label}
      value={value}
      show={(ms) => (ms === null ? '' : String(ms / 1_000))}
      read={(text) => {
        if (text === '') return fallback === null ? undefined : null;
        const seconds = Number(text);
        return /^\d+(\.\d{1,3})?$/.test(text) && seconds <= MAX_SECONDS ? Math.round(seconds * 1_000) : undefined;
      }}
      placeholder={fallback === null ? '' : `${fallback / 1_000} (default)`}
      unit="s between jobs"
      problem={`Enter seconds from 0 to ${MAX_SECONDS}${fallback !== null ? ', or leave it empty for the default' : ''}.`}
      inputMode="decimal"
      onSave={onSave}
    />
  );
}
