/**
 * `model_used` through the API of `chatbridge serve --simulate` (one simulated agent in real
 * Chromium per provider, each site in its default layout): the job object names the model
 * the page names after the answer, with and without a variant (decisions.md, "Models and
 * modes"). ChatGPT's default app-shell build shows no model slug on its answers, so there it
 * is the picker's label; Claude, Gemini and Qwen name it in their pickers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, listening, simulationReady, trackProcesses, type Running } from '../support/processes.js';

const procs = trackProcesses('chatbridge-model-used-');
let server: Running;
let key: string;

beforeAll(async () => {
  const agents = 'chatgpt=1,claude=1,gemini=1,qwen=1';
  server = await listening(procs.launch([CLI, 'serve', '--simulate-agents', agents, '--port', '0', '--data-dir', procs.tempDir()]), 30_000);
  key = await simulationReady(server, 90_000);
}, 120_000);

async function ask(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const job = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(job)).toBe(200);
  // What a poll reads says the same.
  const read = await fetch(`${server.url}/v1/completions/${job.id as string}`, { headers: { authorization: `Bearer ${key}` } });
  expect(((await read.json()) as Record<string, unknown>).model_used).toBe(job.model_used);
  return job;
}

describe('model_used in serve --simulate', () => {
  it('is what the page names after the answer, on ChatGPT, Claude, Gemini and Qwen, with and without a variant', async () => {
    const cases = [
      { provider: 'chatgpt', variant: 'thinking', asked: 'Thinking', plain: 'Instant' },
      { provider: 'claude', variant: 'opus', asked: 'Opus 4.5', plain: 'Sonnet 4.5' },
      { provider: 'gemini', variant: 'pro', asked: 'Pro', plain: 'Fast' },
      { provider: 'qwen', variant: 'coder', asked: 'Qwen3-Coder', plain: 'Qwen3-Max' },
    ];
    // The providers answer side by side; each agent takes its two jobs in turn, the plain one first.
    const seen = await Promise.all(
      cases.map(async (c) => {
        const plain = await ask({ prompt: `Which model answers by default on ${c.provider}?`, provider: c.provider });
        const asked = await ask({ prompt: `Which model answers under ${c.variant}?`, provider: c.provider, variant: c.variant });
        return [c.provider, { plain: [plain.variant, plain.model_used], asked: [asked.variant, asked.model_used] }];
      }),
    );
    expect(Object.fromEntries(seen)).toEqual(
      Object.fromEntries(cases.map((c) => [c.provider, { plain: [null, c.plain], asked: [c.variant, c.asked] }])),
    );

    // Stopped as a person stops it, so its browsers are closed before the data dir is removed.
    server.child.kill('SIGTERM');
    expect((await server.closed).code).toBe(0);
  }, 120_000);
});
