import { ATTACHMENT_LIMITS } from '../core/attachments.js';
import type { Settings, SettingsStore } from '../settings/settings-store.js';
import { parse, UsageError } from './args.js';
import { DATABASE_OPTION } from './database.js';
import { changeSettings } from './shared-settings.js';

const MiB = 1024 * 1024;
const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kib: 1024, kb: 1024, m: MiB, mib: MiB, mb: MiB };

/** A size as a person writes it: 5MiB, 500K, 1048576 (K and M are 1024 and 1024²); "default" is the contract's. */
export function parseSize(text: string, option: string, contract: number): number {
  if (text === 'default') return contract;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new UsageError(`${option} takes a size such as 5MiB, 500KiB or 1048576 (bytes), or "default", not "${text}".`);
  return Math.round(Number(match[1]) * unit);
}

/** Bytes as the command prints them: 20 MiB, 512 KiB, 1000 bytes. */
function shownSize(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * `chatbridge settings attachments [--max-file SIZE] [--max-total SIZE]`: shows, or lowers,
 * the most a job's file may have and its files together (the contract's 20 MiB and 50 MiB
 * are the most; "default" goes back to them). A job over them is refused with 413.
 */
export async function settingsAttachments(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, ...DATABASE_OPTION, 'max-file': { type: 'string' }, 'max-total': { type: 'string' } });
  const file = values['max-file'] === undefined ? undefined : parseSize(values['max-file'], '--max-file', ATTACHMENT_LIMITS.maxFileBytes);
  const total = values['max-total'] === undefined ? undefined : parseSize(values['max-total'], '--max-total', ATTACHMENT_LIMITS.maxTotalBytes);
  const change =
    file === undefined && total === undefined
      ? undefined
      : async (_now: Settings, store: SettingsStore) => {
          if (file !== undefined) await store.setAttachmentLimit('file', file);
          if (total !== undefined) await store.setAttachmentLimit('total', total);
        };
  const shown = await changeSettings(values, change);
  process.stdout.write(
    `Files: at most ${shownSize(shown.attachmentMaxFileBytes)} a file and ${shownSize(shown.attachmentMaxTotalBytes)} a job together ` +
      `(the most: ${shownSize(ATTACHMENT_LIMITS.maxFileBytes)} and ${shownSize(ATTACHMENT_LIMITS.maxTotalBytes)}), at most ${ATTACHMENT_LIMITS.maxFiles} files a job.\n`,
  );
}
