/**
 * `chatbridge mcp` against `chatbridge serve --simulate` (one simulated Claude agent in real
 * Chromium), driven by the MCP SDK's own client over stdio, with CHATBRIDGE_URL naming the
 * service: list tools, ask, continue, cancel, a refused prompt. One provider: it is slow.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { CLI, listening, simulationReady, trackProcesses, type Running } from '../support/processes.js';

const procs = trackProcesses('chatbridge-mcp-sim-');
let client: Client;
let server: Running;

beforeAll(async () => {
  server = await listening(procs.launch([CLI, 'serve', '--simulate-agents', 'claude=1', '--port', '0', '--data-dir', procs.tempDir()]), 30_000);
  const apiKey = await simulationReady(server, 60_000, 'the simulated agent');
  const env = { ...process.env, CHATBRIDGE_URL: server.url, CHATBRIDGE_API_KEY: apiKey } as Record<string, string>;
  delete env.CHATBRIDGE_DATA_DIR;
  client = new Client({ name: 'chatbridge-e2e', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--max-wait', '3s'], env, stderr: 'pipe' }));
}, 120_000);
afterAll(async () => client?.close());

const texts = (r: unknown) => (r as { content: { text: string }[] }).content.map((c) => c.text);

/** ask's result, or, when a loaded machine took longer than the 3 s wait bound, get_job's once the job ends. */
async function finalResult(result: unknown): Promise<unknown> {
  const pending = /^No answer yet after .*call get_job with job_id "(job_\w+)"/.exec(texts(result)[0]!);
  return pending ? client.callTool({ name: 'get_job', arguments: { job_id: pending[1], wait_seconds: 60 } }) : result;
}

describe('chatbridge mcp against serve --simulate', () => {
  it('asks the simulated Claude, continues, cancels and reports a refusal', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ask', 'get_job', 'cancel_job', 'status']);
    expect(texts(await client.callTool({ name: 'status', arguments: {} }))[0]).toMatch(/^claude: 1 of 1 agent idle/m);

    const progress: string[] = [];
    const first = await finalResult(await client.callTool({ name: 'ask', arguments: { prompt: 'Second opinion on a queue design?', provider: 'claude' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    }));
    expect((first as { isError?: boolean }).isError).toBeFalsy();
    expect(texts(first)[1]).toBe(simulatedAnswer('Claude', 'claude', 'Second opinion on a queue design?', 1));
    expect(progress.some((m) => m.includes('is running on'))).toBe(true);
    const ref = /conversation_ref: (cv_\w+)/.exec(texts(first)[2]!)![1]!;

    const second = await finalResult(await client.callTool({ name: 'ask', arguments: { prompt: 'And its failure modes?', conversation_ref: ref } }));
    expect(texts(second)[1]).toBe(simulatedAnswer('Claude', 'claude', 'And its failure modes?', 2));

    const pending = await client.callTool({ name: 'ask', arguments: { prompt: '[[sim:hang]] never ends', provider: 'claude' } });
    const id = /job_\w+/.exec(texts(pending)[0]!)![0];
    expect(texts(pending)[0]).toContain('No answer yet after 3 seconds');
    expect(texts(await client.callTool({ name: 'cancel_job', arguments: { job_id: id } }))[0]).toBe(`${id} is cancelled.`);

    const refused = (await finalResult(await client.callTool({ name: 'ask', arguments: { prompt: '[[sim:refuse]] no', provider: 'claude' } }))) as { isError?: boolean };
    expect(refused.isError, JSON.stringify(texts(refused))).toBe(true);
    expect(texts(refused)[0]).toMatch(/^PROMPT_REJECTED: /);

    // Stopped as a person stops it, so its browser is closed before the data dir is removed.
    await client.close();
    server.child.kill('SIGTERM');
    expect((await server.closed).code).toBe(0);
  }, 120_000);
});
