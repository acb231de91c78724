import type { DeltaRow } from '../core/jobs.js';

/**
 * What of a job's answer its event streams have sent, built from its stored pieces in
 * order: each piece joins its attempt's text, and the stream carries an attempt's text only
 * where it goes on from everything sent before. So a retried attempt's pieces never take
 * back or repeat what an earlier attempt's sent: they are streamed once (if ever) they run
 * past it and begin with it; until then they are held. Every instance builds the same text
 * from the same rows, so any of them can resume a stream from a character count.
 */
export class StreamedAnswer {
  /** Everything streamed so far. */
  text = '';
  /** The last stored piece taken in. */
  seq = 0;
  private readonly byAttempt = new Map<number, string>();

  /** Takes in the next stored piece; returns what it adds to the stream ('' for nothing). */
  add(row: DeltaRow): string {
    if (row.seq <= this.seq) return '';
    this.seq = row.seq;
    const mine = (this.byAttempt.get(row.attempt) ?? '') + row.text;
    this.byAttempt.set(row.attempt, mine);
    if (mine.length <= this.text.length || !mine.startsWith(this.text)) return '';
    const added = mine.slice(this.text.length);
    this.text = mine;
    return added;
  }
}

/**
 * The rest of a succeeded job's answer after what was streamed, or null when what was
 * streamed is not the start of it (the stream cannot be made right: the job object that
 * follows carries the answer whole).
 */
export function restOfAnswer(streamed: string, response: string): string | null {
  return response.startsWith(streamed) ? response.slice(streamed.length) : null;
}
