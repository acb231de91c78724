/**
 * The pause matrix (test/e2e/answer-pauses.ts), whole: every provider and layout, with its
 * finished signal and Copy as the pack knows them and drifted away, a 6 s pause inside a
 * 10 s answer and a 20 s pause inside a 30 s answer; on each provider's default layout also
 * a 60 s pause inside a 5-minute answer. Every answer comes back whole. The table it prints
 * says how each end was decided and what each job took.
 */
import { expect, it } from 'vitest';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { pauseTable, runPauseCases, type PauseCase } from '../e2e/answer-pauses.js';

const CASES: PauseCase[] = PROVIDERS.flatMap((provider) =>
  SIM_SITES[provider].layouts.flatMap((layout, i) =>
    [true, false].flatMap((signalled) => [
      // The long ones first: the runner starts the looks in this order.
      ...(i === 0 ? [{ provider, layout, signalled, pauseMs: 60_000, answerMs: 300_000 }] : []),
      { provider, layout, signalled, pauseMs: 6_000, answerMs: 10_000 },
      { provider, layout, signalled, pauseMs: 20_000, answerMs: 30_000 },
    ]),
  ),
).sort((a, b) => b.answerMs - a.answerMs);

it('every provider and layout: answers with a silent pause inside come back whole', async () => {
  const rows = await runPauseCases(CASES, 10);
  console.log(pauseTable(rows));
  for (const row of rows) {
    expect({ status: row.status, whole: row.whole, finish: row.finish }, `${row.provider}/${row.layout}/${row.pauseMs}`).toEqual({
      status: 200,
      whole: true,
      finish: row.signalled ? 'signal' : 'evidence',
    });
    expect(row.tookMs).toBeGreaterThanOrEqual(row.answerMs + row.pauseMs);
  }
}, 1_800_000);
