/**
 * A sample of the pause matrix (answer-pauses.ts; all of it in npm run test:drift): a 6 s
 * silent pause inside a 10 s answer, on ChatGPT as it is, and on Perplexity and Qwen's
 * 2026-05 page with their finished signal and Copy known to no cue.
 */
import { expect, it } from 'vitest';
import { pauseTable, runPauseCases, type PauseCase } from './answer-pauses.js';

const CASES: PauseCase[] = [
  { provider: 'chatgpt', layout: 'app-shell', signalled: true, pauseMs: 6_000, answerMs: 10_000 },
  { provider: 'perplexity', layout: 'final-text', signalled: false, pauseMs: 6_000, answerMs: 10_000 },
  { provider: 'qwen', layout: 'chat-panel', signalled: false, pauseMs: 6_000, answerMs: 10_000 },
];

it('answers with a silent pause inside come back whole, ended by the finished signal or by the evidence a pause cannot give', async () => {
  const rows = await runPauseCases(CASES, CASES.length);
  console.log(pauseTable(rows));
  for (const row of rows) {
    expect({ status: row.status, whole: row.whole, finish: row.finish }, `${row.provider}/${row.layout}`).toEqual({
      status: 200,
      whole: true,
      finish: row.signalled ? 'signal' : 'evidence',
    });
    expect(row.tookMs).toBeGreaterThanOrEqual(row.answerMs + row.pauseMs);
  }
}, 90_000);
