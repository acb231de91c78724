import { PROVIDER_NAMES } from '../../main/core/providers.js';

export const providerName = (provider: string | null) =>
  provider ? (PROVIDER_NAMES[provider as keyof typeof PROVIDER_NAMES] ?? provider) : 'any provider';

/**
 * This browser's local time: "14:05" today, "3 Mar 14:05" on another day; `seconds` for a
 * job's own events ("14:05:09"), `zone` where the time is compared with others ("14:05:09 GMT+1").
 */
export function clockTime(iso: string, now = Date.now(), { seconds = false, zone = false } = {}): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    ...(zone ? { timeZoneName: 'short' } : {}),
  });
  if (new Date(now).toDateString() === date.toDateString()) return time;
  return `${date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${time}`;
}

/** A time of a job's page: local, to the second. */
export const jobTime = (iso: string, now = Date.now()) => clockTime(iso, now, { seconds: true });

/** The API's UTC timestamps inside server words ("resting until 2026-11-26T17:00:33Z"), as the page's own times. */
export function localTimes(text: string, now = Date.now()): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g, (iso) => jobTime(iso, now));
}

/** "in 12 min", "3 min ago", "just now". */
export function relative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  if (abs < 5_000) return 'just now';
  const text = duration(abs, false);
  return ms > 0 ? `in ${text}` : `${text} ago`;
}

/** 850 ms, 12 s, 4 min, 2 h 5 min. */
export function duration(ms: number, precise = true): string {
  if (ms < 1_000) return precise ? `${ms} ms` : '1 s';
  const s = Math.round(ms / 1_000);
  if (s < 60) return precise && ms < 10_000 ? `${(ms / 1_000).toFixed(1)} s` : `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** 812 bytes, 300 KB, 2.5 MB: a file's size in the units a person reads (1 KB = 1 000 bytes, as file managers show). */
export function fileSize(bytes: number): string {
  if (bytes < 1_000) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1_000, 'KB'] : [bytes / 1_000_000, 'MB'];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

export const isActive = (status: string) => status === 'queued' || status === 'dispatched';
