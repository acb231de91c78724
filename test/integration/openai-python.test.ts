/**
 * The official Python `openai` package against the service, for what its own repeats do:
 * it obeys x-should-retry, and numbers its tries in x-stainless-retry-count as the JS SDK
 * does, and streams. Python is not part of the project: the test runs with an interpreter that has
 * `openai` (CHATBRIDGE_TEST_PYTHON, else python3) and is skipped when there is none.
 */
import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.js';

const PYTHON = process.env.CHATBRIDGE_TEST_PYTHON ?? 'python3';

function hasOpenAi(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import openai'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs one chat completion with the SDK's default two retries; prints the outcome as JSON. */
const SCRIPT = `
import json, sys, openai
url, key, model, prompt, timeout = sys.argv[1:6]
client = openai.OpenAI(base_url=url + "/v1", api_key=key, timeout=float(timeout), max_retries=2)
try:
    r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])
    print(json.dumps({"id": r.id, "content": r.choices[0].message.content}))
except openai.APIStatusError as e:
    print(json.dumps({"status": e.status_code, "code": e.body["code"] if isinstance(e.body, dict) else None}))
`;

/** Streams one chat completion; prints the chunks' id and their contents (empty ones left out) as JSON. */
const STREAM_SCRIPT = `
import json, sys, openai
url, key, model, prompt = sys.argv[1:5]
client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
stream = client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}], stream=True)
ids, pieces = set(), []
for chunk in stream:
    ids.add(chunk.id)
    if chunk.choices and chunk.choices[0].delta.content:
        pieces.append(chunk.choices[0].delta.content)
print(json.dumps({"ids": sorted(ids), "pieces": pieces}))
`;

function python(args: string[], script = SCRIPT): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-c', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(err))));
  });
}

const WITH_OPENAI = hasOpenAi();
if (!WITH_OPENAI) console.log(`skipped "the official Python openai client": ${PYTHON} cannot import openai (.ci/run installs it in a virtual environment; CHATBRIDGE_TEST_PYTHON names another interpreter)`);

describe.skipIf(!WITH_OPENAI)('the official Python openai client', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ agents: { chatgpt: 1 } });
  });
  afterAll(async () => t?.stop());

  const jobsOf = async (prompt: string) => (await t.driver.recent(500)).filter((j) => j.prompt === prompt);

  it('a refused prompt is one job, not three', async () => {
    const prompt = 'refuse me [[fail=rejected]]';
    expect(await python([t.url, t.key, 'service/chatgpt', prompt, '20'])).toEqual({ status: 502, code: 'PROMPT_REJECTED' });
    expect(await jobsOf(prompt)).toHaveLength(1);
  });

  it("a repeat after the SDK's own timeout waits for the first try's job", async () => {
    const prompt = 'slow one [[ms=1200]]';
    const answer = await python([t.url, t.key, 'service/chatgpt', prompt, '1']);
    expect(answer.content).toMatch(/slow one/);
    expect((await jobsOf(prompt)).map((j) => j.id)).toEqual([answer.id]);
  });

  it('streams an answer in several content chunks, joined equal to the same prompt answered whole', async () => {
    await t.service.settings.setStreaming(true);
    try {
      const prompt = 'stream me [[stream=4/150]]';
      const streamed = (await python([t.url, t.key, 'service/chatgpt', prompt], STREAM_SCRIPT)) as { ids: string[]; pieces: string[] };
      expect(streamed.pieces.length).toBeGreaterThanOrEqual(3);
      const whole = await python([t.url, t.key, 'service/chatgpt', prompt, '20']);
      expect(streamed.pieces.join('')).toBe(whole.content);
      expect(streamed.ids).toHaveLength(1);
    } finally {
      await t.service.settings.setStreaming(false);
    }
  });
});
