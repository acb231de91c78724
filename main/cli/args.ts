import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_PORT } from '../core/loopback.js';
import { CLI } from '../core/cli-name.js';
import { MAX_PAUSE_MS } from '../contract/enumerations.js';

/** A mistake on the command line: printed as one line, never as a stack trace. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, positionals = 0) {
  try {
    const parsed = parseArgs({ args: joinNegativeValues(args, options), options, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) {
      throw new UsageError(`Unexpected argument: ${parsed.positionals[positionals]}`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(parseArgsMistake(error as NodeJS.ErrnoException, positionals));
  }
}

/**
 * Node's parseArgs words its mistakes for programmers, over several lines, some with
 * unbalanced quotes ("as in '-- \"--x\""); this says each in one line of our own.
 */
function parseArgsMistake(error: NodeJS.ErrnoException, positionals: number): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `Unknown option ${option}.${positionals > 0 ? ' (A prompt that starts with "-" goes after --, as in -- "-x".)' : ''} Run ${CLI} help.`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `Unexpected argument: ${/'([^']*)'/.exec(error.message)?.[1] ?? ''} (this command takes options only).`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/ambiguous/.test(error.message)) return `${option} needs a value, not another option (a value that starts with "-" goes as ${option}=-VALUE).`;
      if (/argument missing/.test(error.message)) return `${option} needs a value.`;
      if (/does not take an argument/.test(error.message)) return `${option} takes no value.`;
  }
  return error.message.split('\n')[0]!;
}

/**
 * Node's parser refuses `--per-hour -1` as "ambiguous" (the value looks like an option).
 * A negative number after a string option is its value, so the command's own check says
 * what is wrong with it.
 */
function joinNegativeValues(args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : '';
    if (options[name]?.type === 'string' && /^-\d/.test(args[i + 1] ?? '')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]!);
  }
  return out;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "90d", "12h", "30m", "45s", "2w" → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (!m || Number(m[1]) <= 0) throw new UsageError(`Not a duration: "${text}" (use e.g. 30d, 12h, 15m).`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/**
 * A short time: "20s", "1m", "500ms", "0" (none) → milliseconds, at most `max`. Unlike a
 * duration, zero is a value here, and milliseconds are allowed. `what` names it in the error.
 */
function parseShortTime(text: string, option: string, what: string, max: number): number {
  const m = /^(\d+)\s*(ms|s|m)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1_000) : NaN;
  if (!m || ms > max) throw new UsageError(`${option} takes ${what} such as 20s, 1m or 0, at most ${max / 60_000}m, not "${text}".`);
  return ms;
}

/** A pause between jobs (parseShortTime). */
export const parsePause = (text: string, option: string): number => parseShortTime(text, option, 'a pause', MAX_PAUSE_MS);

/** How long a stop lets running answers finish (parseShortTime), at most 10 minutes. */
export const parseGrace = (text: string, option: string): number => parseShortTime(text, option, 'a time', 600_000);

/** "N" → N, "none" → null. */
export function parseCap(text: string | undefined): number | null {
  if (text === undefined) throw new UsageError('Give --per-hour N or --per-hour none.');
  if (text === 'none') return null;
  if (!/^\d+$/.test(text) || Number(text) > 1_000_000) throw new UsageError(`--per-hour takes a whole number or "none", not "${text}".`);
  return Number(text);
}

export function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`Not a port number: "${text}".`);
  return port;
}
