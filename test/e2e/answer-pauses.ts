/**
 * Answers with a silent pause inside them (issue 31 §1): a reasoning model or a stalled
 * connection stops writing for a while with nothing changing on the page, the stop control
 * hidden (the simulator's `[[sim:think=MS]]`, halfway through the answer: inside its code
 * block). Each case asks through the API on real Chromium and checks that the answer came
 * back whole, byte for byte, after the pause, and how its end was decided: the site's own
 * finished signal, or, where no cue finds it nor Copy (`no-finish` and `no-copy` drift), the
 * answer's own controls. npm test runs a sample (answer-pauses.test.ts), the drift matrix
 * every provider and layout (test/drift/answer-pauses.test.ts).
 */
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import type { DriftKind } from '../../agents/simulator/client/drift-kinds.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import type { Provider } from '../../main/core/providers.js';
import { startE2E, type E2E } from '../support/e2e.js';

/** The finished signal and every Copy known to no cue. */
export const UNSIGNALLED: readonly DriftKind[] = ['no-finish', 'no-copy'];

export interface PauseCase {
  provider: Provider;
  layout: string;
  /** Whether the pack's finished and Copy cues find the page's (else the `UNSIGNALLED` drift). */
  signalled: boolean;
  pauseMs: number;
  /** How long the answer takes to write, the pause aside. */
  answerMs: number;
}

/** What a case came to: one line of the table a run prints. */
export interface PauseRow extends PauseCase {
  status: number;
  whole: boolean;
  /** `signal` or `evidence`, from the attempt's record; what went wrong otherwise. */
  finish: string;
  tookMs: number;
}

/** The site's finished signal ended the answer, or the evidence did: as the attempt's record says it. */
function finishKind(detail: string | null): string {
  if (detail?.startsWith('Finished on ')) return 'signal';
  if (detail?.startsWith('No cue finds ')) return 'evidence';
  return `unknown: ${detail}`;
}

/**
 * Runs `cases`, those of one look (provider, layout, cues) on one service with as many
 * agents as they are, at most `looksAtOnce` looks at a time. Every case ends in a row.
 */
export async function runPauseCases(cases: readonly PauseCase[], looksAtOnce: number): Promise<PauseRow[]> {
  const looks = new Map<string, PauseCase[]>();
  for (const c of cases) {
    const key = `${c.provider}/${c.layout}/${c.signalled}`;
    looks.set(key, [...(looks.get(key) ?? []), c]);
  }
  const rows: PauseRow[] = [];
  const queue = [...looks.values()];
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) rows.push(...(await runLook(group)));
  };
  await Promise.all(Array.from({ length: looksAtOnce }, worker));
  return rows.sort((a, b) => `${a.provider}/${a.layout}/${!a.signalled}/${a.pauseMs}`.localeCompare(`${b.provider}/${b.layout}/${!b.signalled}/${b.pauseMs}`));
}

/** A case that could not run, as its row says: what went wrong. */
const broken = (c: PauseCase, error: unknown): PauseRow => ({ ...c, status: 0, whole: false, finish: String(error).slice(0, 300), tookMs: 0 });

async function runLook(cases: PauseCase[]): Promise<PauseRow[]> {
  const { provider, layout, signalled } = cases[0]!;
  let e: E2E;
  try {
    e = await startE2E(provider, cases.length, { layout, drift: signalled ? [] : UNSIGNALLED });
  } catch (error) {
    return cases.map((c) => broken(c, error));
  }
  try {
    return await Promise.all(
      cases.map(async (c, i): Promise<PauseRow> => {
        const prompt = `Pause ${i + 1} [[sim:ms=${c.answerMs}]] [[sim:think=${c.pauseMs}]]`;
        const started = Date.now();
        // Polled rather than held: a 5-minute hold outlasts the HTTP client's wait for headers.
        const submitted = await e.api('POST', '/v1/completions', { body: { provider, prompt, wait: false, timeout_ms: c.answerMs + c.pauseMs + 60_000 } });
        let job = submitted.body;
        while (submitted.status === 202 && !['succeeded', 'failed', 'cancelled', 'expired'].includes(job.status)) {
          await new Promise((r) => setTimeout(r, 250));
          job = (await e.api('GET', `/v1/completions/${submitted.body.id}`)).body;
        }
        const tookMs = Date.now() - started;
        const attempts = submitted.status === 202 ? await e.driver.attempts(submitted.body.id) : [];
        return {
          ...c,
          status: job.status === 'succeeded' ? 200 : submitted.status,
          whole: job.response === simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 1),
          finish: job.status === 'succeeded' ? finishKind(attempts.at(-1)?.detail ?? null) : JSON.stringify(job.error ?? job).slice(0, 300),
          tookMs,
        };
      }).map((row, i) => row.catch((error: unknown) => broken(cases[i]!, error))),
    );
  } finally {
    await e.stop();
  }
}

/** The rows as a Markdown table: provider, layout, cues, pause in the answer, outcome, time. */
export function pauseTable(rows: readonly PauseRow[]): string {
  const lines = rows.map(
    (r) =>
      `| ${r.provider} | ${r.layout} | ${r.signalled ? 'present' : 'drifted away'} | ${r.pauseMs / 1000} s in ${r.answerMs / 1000} s | ${r.status} ${r.whole ? 'whole' : 'NOT WHOLE'} | ${r.finish} | ${(r.tookMs / 1000).toFixed(1)} s |`,
  );
  return ['| provider | layout | finished and Copy cues | pause | answer | ended by | took |', '| --- | --- | --- | --- | --- | --- | --- |', ...lines].join('\n');
}
