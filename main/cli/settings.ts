import { parse, parsePause, UsageError } from './args.js';
import { DATABASE_OPTION } from './database.js';
import { settingsVariants } from './settings-variants.js';
import { settingsWebhooks } from './settings-webhooks.js';
import { settingsAttachments } from './settings-attachments.js';
import { withSettings } from './shared-settings.js';
import { CLI } from '../core/cli-name.js';
import { MAX_RETENTION_DAYS } from '../contract/enumerations.js';

const USE = `Use: ${CLI} settings retention [--days N|none] | settings pause [--min 10s] | settings streaming [on|off] | settings attachments [--max-file SIZE] [--max-total SIZE] | settings variants [allow|deny|cap …] | settings webhooks [deny|undeny …]`;

/**
 * `chatbridge settings retention`: shows, or with --days sets, how long prompts and answers
 * are kept. `chatbridge settings pause`: shows, or with --min sets, the least pause between
 * an agent's jobs (agents set their own with `agents set ID --pause`).
 */
export async function settings(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'variants') return settingsVariants(rest);
  if (sub === 'webhooks') return settingsWebhooks(rest);
  if (sub === 'streaming') return settingsStreaming(rest);
  if (sub === 'attachments') return settingsAttachments(rest);
  if (sub !== 'retention' && sub !== 'pause') throw new UsageError(USE);
  const { values } = parse(rest, { 'data-dir': { type: 'string' }, ...DATABASE_OPTION, days: { type: 'string' }, min: { type: 'string' } });
  if (values[sub === 'pause' ? 'days' : 'min'] !== undefined) throw new UsageError(USE);
  const days = values.days === undefined ? undefined : parseDays(values.days);
  const pause = values.min === undefined ? undefined : parsePause(values.min, '--min');
  const shown = await withSettings(values, async (store) => {
    if (pause !== undefined) await store.setPauseMs(pause);
    if (days !== undefined) await store.setRetentionDays(days);
    return store.get();
  });
  if (sub === 'pause') {
    const ms = shown.pauseMs;
    process.stdout.write(
      ms === 0
        ? 'Pause between jobs: none. An agent takes its next job as soon as it is free (agents with a pause of their own keep it).\n'
        : `Pause between jobs: at least ${ms / 1000} s, plus up to ${ms / 2000} s at random, after each job of an agent (agents with a pause of their own keep it).\n`,
    );
    return;
  }
  const kept = shown.retentionDays;
  process.stdout.write(
    kept === null
      ? 'Retention: none. Prompts and answers are kept until you delete them.\n'
      : `Retention: ${kept} day${kept === 1 ? '' : 's'}. Prompts and answers of jobs that finished longer ago are removed; timings and usage stay.\n`,
  );
}

/** `chatbridge settings streaming [on|off]`: shows, or sets, whether chat completions may stream. */
async function settingsStreaming(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { 'data-dir': { type: 'string' }, ...DATABASE_OPTION }, 1);
  const [word] = positionals;
  if (word !== undefined && word !== 'on' && word !== 'off') throw new UsageError(USE);
  const shown = await withSettings(values, async (store) => {
    if (word !== undefined) await store.setStreaming(word === 'on');
    return store.get();
  });
  process.stdout.write(
    shown.streaming
      ? 'Streaming: on. POST /v1/chat/completions with stream: true answers as chat.completion.chunk events; a caller that closes the stream before the answer cancels its job.\n'
      : 'Streaming: off. POST /v1/chat/completions with stream: true is refused (400); GET /v1/completions/{id}/events follows any job.\n',
  );
}

function parseDays(text: string): number | null {
  if (text === 'none') return null;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_RETENTION_DAYS) {
    throw new UsageError(`--days takes a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or "none", not "${text}".`);
  }
  return Number(text);
}
