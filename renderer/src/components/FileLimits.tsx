import { ATTACHMENT_LIMITS } from '../../../main/core/attachments.js';
import type { AdminState, SettingsPatch } from '../api.js';
import { NumberField } from './NumberField.js';

const MiB = 1024 * 1024;

/** Bytes in MiB as the field shows them (exact to the byte once read back); empty at the contract's most, which is what empty saves. */
const inMiB = (most: number) => (bytes: number | null) => (bytes === null || bytes === most ? '' : String(Number((bytes / MiB).toFixed(6))));

/** MiB as typed (5, 0.5) in bytes, up to the contract's most; empty is that most. */
const fromMiB = (most: number) => (text: string) => {
  if (text === '') return most;
  if (!/^\d+(?:\.\d+)?$/.test(text)) return undefined;
  const bytes = Math.round(Number(text) * MiB);
  return bytes >= 1 && bytes <= most ? bytes : undefined;
};

/**
 * The most a job's file may have, and its files together: the contract's 20 MiB and 50 MiB
 * are the most (empty goes back to them), lower is the operator's choice. Also
 * `chatbridge settings attachments` and PATCH /admin/v1/settings.
 */
export function FileLimits({ settings, onSave }: { settings: AdminState['settings']; onSave: (patch: SettingsPatch) => Promise<unknown> }) {
  const fields = [
    { label: 'At most, a file', value: settings.attachment_max_file_bytes, most: ATTACHMENT_LIMITS.maxFileBytes, key: 'attachment_max_file_bytes' },
    { label: "At most, a job's files together", value: settings.attachment_max_total_bytes, most: ATTACHMENT_LIMITS.maxTotalBytes, key: 'attachment_max_total_bytes' },
  ] as const;
  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title">Files in a prompt</h2>
      <div className="card stack">
        {fields.map((f) => (
          <NumberField
            key={f.key}
            label={f.label}
            value={f.value}
            show={inMiB(f.most)}
            read={fromMiB(f.most)}
            placeholder={`${f.most / MiB} (the most)`}
            unit="MiB"
            inputMode="decimal"
            problem={`Enter a size in MiB above 0 and at most ${f.most / MiB}, or leave it empty for ${f.most / MiB}.`}
            onSave={(bytes) => onSave({ [f.key]: bytes ?? f.most })}
          />
        ))}
        <p className="note">
          A job whose file, or whose files together, are over these is refused (413) before anything is queued. At most {ATTACHMENT_LIMITS.maxFiles} files a
          job; each provider&apos;s own limits on types and sizes apply as well.
        </p>
      </div>
    </section>
  );
}
