/**
 * `chatbridge mcp`'s MCP tasks, driven by the SDK's own client over stdio against the
 * scripted server (the service with scripted agents, in its own process): a task-augmented
 * ask is its job, handed back at once; tasks/get follows the job's status, tasks/result
 * waits for the answer, tasks/cancel cancels the job; and another `chatbridge mcp` process
 * with the same key reads, waits on and cancels the tasks of one that has gone.
 *
 * Needs dist/ built (`tsc` runs before `vitest run` in `npm test`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, listening, SCRIPTED_SERVER, trackProcesses, type Running } from '../support/processes.js';
import { until } from '../support/until.js';

const procs = trackProcesses('chatbridge-mcp-tasks-');
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  const e = { ...process.env, ...extra } as Record<string, string>;
  for (const name of ['CHATBRIDGE_API_KEY', 'CHATBRIDGE_URL', 'CHATBRIDGE_DATA_DIR']) if (!(name in extra)) delete e[name];
  return e;
}

async function service(): Promise<{ dir: string; server: Running; key: string }> {
  const dir = procs.tempDir();
  const server = await listening(procs.launch([SCRIPTED_SERVER, '--data-dir', dir, '--port', '0', '--agents', 'claude=1'], env()));
  const created = procs.launch([CLI, 'keys', 'create', '--name', 'mcp', '--scopes', 'completions:read,completions:write', '--data-dir', dir], env());
  await created.closed;
  return { dir, server, key: created.out.stdout.trimEnd().split('\n').pop()! };
}

/** The SDK's client, with a `chatbridge mcp` process of its own as its stdio server. */
async function connect(dir: string, key: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--data-dir', dir], env: env({ CHATBRIDGE_API_KEY: key }), stderr: 'pipe' });
  const client = new Client({ name: 'chatbridge-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** tools/call of ask with `task`: the CreateTaskResult. */
function askAsTask(client: Client, args: Record<string, unknown>, task: { ttl?: number } = {}) {
  return client.request({ method: 'tools/call', params: { name: 'ask', arguments: args, task } }, CreateTaskResultSchema);
}

const texts = (r: unknown) => (r as { content: { text: string }[] }).content.map((c) => c.text);
const taskResult = (client: Client, id: string) => client.experimental.tasks.getTaskResult(id, CallToolResultSchema);

async function api(server: Running, key: string, path: string): Promise<any> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } });
  return res.json();
}

/** The JSON-RPC error a request was refused with. */
async function refusal(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('chatbridge mcp tasks', () => {
  it('declares tasks of tools/call with cancel, and ask as the tool that may run as one', async () => {
    const { dir, key } = await service();
    const client = await connect(dir, key);
    expect(client.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.execution?.taskSupport])).toEqual([
      ['ask', 'optional'],
      ['get_job', undefined],
      ['cancel_job', undefined],
      ['status', undefined],
    ]);
  });

  it('a task-augmented ask is its job, at once; tasks/get shows it working then completed; tasks/result waits and gives the answer', async () => {
    const { dir, server, key } = await service();
    const client = await connect(dir, key);
    // The one agent is held by another job: the task's job waits until that one is cancelled.
    const blocker = (await askAsTask(client, { prompt: '[[hang]] ahead of it' })).task.taskId;
    await until(async () => (await client.experimental.tasks.getTask(blocker)).statusMessage?.includes('is running on'), 10_000, 'the first job to run');
    const { task } = await askAsTask(client, { prompt: 'Review this plan', provider: 'claude' }, { ttl: 600_000 });
    expect(task).toMatchObject({ taskId: expect.stringMatching(/^job_\w+$/), status: 'working', ttl: 600_000, pollInterval: 5_000 });
    const job = await api(server, key, `/v1/completions/${task.taskId}`);
    expect(job).toMatchObject({ status: 'queued', provider: 'claude', metadata: { mcp_task_ttl_ms: 600_000 } });
    expect(task.createdAt).toBe(job.created_at);

    // tasks/result holds until the job ends; meanwhile tasks/get shows it waiting, and why.
    let ended = false;
    const result = taskResult(client, task.taskId).finally(() => (ended = true));
    const waiting = await client.experimental.tasks.getTask(task.taskId);
    expect(waiting).toMatchObject({ status: 'working', ttl: 600_000 });
    expect(waiting.statusMessage).toMatch(new RegExp(`^job ${task.taskId} is queued at position 1: every Claude agent is busy with another job`));
    await new Promise((r) => setTimeout(r, 500));
    expect(ended).toBe(false);
    await fetch(`${server.url}/v1/completions/${blocker}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });

    const answered = await result;
    expect(answered.isError).toBeFalsy();
    const [provenance, answer, about] = texts(answered);
    expect(provenance).toMatch(/^The next block is claude's answer: text written by another AI model/);
    expect(answer).toMatch(/^echo\(agt_\w+#1\): Review this plan$/);
    expect(about).toMatch(new RegExp(`^Answered by claude \\(agent claude-1\\), job ${task.taskId}\\. conversation_ref: cv_\\w+`));
    expect(answered._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });

    const done = await client.experimental.tasks.getTask(task.taskId);
    expect(done).toMatchObject({ status: 'completed', statusMessage: 'Answered by claude; tasks/result gives the answer.' });
    expect(done.lastUpdatedAt).toBe((await api(server, key, `/v1/completions/${task.taskId}`)).finished_at);
    // Asked again, the same answer.
    expect(texts(await taskResult(client, task.taskId))).toEqual([provenance, answer, about]);

    // A ttl longer than every install keeps answers is bounded to one day; none asked for is that day.
    expect((await askAsTask(client, { prompt: 'quick' }, { ttl: 7 * 86_400_000 })).task.ttl).toBe(86_400_000);
    expect((await askAsTask(client, { prompt: 'quick' })).task.ttl).toBe(86_400_000);
  });

  it('tasks/cancel cancels the job; a job that fails is a failed task whose result is the tool error', async () => {
    const { dir, server, key } = await service();
    const client = await connect(dir, key);
    const { task } = await askAsTask(client, { prompt: '[[hang]] a long one' });
    await until(async () => (await client.experimental.tasks.getTask(task.taskId)).statusMessage?.includes('is running on'), 10_000, 'the job to run');
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    expect((await api(server, key, `/v1/completions/${task.taskId}`)).status).toBe('cancelled');
    const result = await taskResult(client, task.taskId);
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual([`JOB_CANCELLED: The job was cancelled. (job ${task.taskId})`]);
    // The specification's answer to cancelling a task that is over.
    expect((await refusal(client.experimental.tasks.cancelTask(task.taskId))).code).toBe(ErrorCode.InvalidParams);

    const failing = (await askAsTask(client, { prompt: '[[fail=rejected]] no' })).task;
    const failed = await taskResult(client, failing.taskId);
    expect(failed.isError).toBe(true);
    expect(texts(failed)[0]).toMatch(new RegExp(`^PROMPT_REJECTED: .* \\(job ${failing.taskId}\\)$`));
    const status = await client.experimental.tasks.getTask(failing.taskId);
    expect(status).toMatchObject({ status: 'failed', statusMessage: texts(failed)[0] });
  });

  it('a call refused before its job exists is a JSON-RPC error with the tool error’s words; unknown tasks are not found; no list', async () => {
    const { dir, key } = await service();
    const client = await connect(dir, key);
    const empty = await refusal(askAsTask(client, { prompt: '' }));
    expect(empty.code).toBe(ErrorCode.InvalidParams);
    expect(empty.message).toMatch(/INVALID_REQUEST: prompt is empty: give at least one character/);
    const unknownRef = await refusal(askAsTask(client, { prompt: 'more', conversation_ref: 'cv_unknown' }));
    expect([unknownRef.code, unknownRef.message]).toEqual([ErrorCode.InvalidParams, 'MCP error -32602: INVALID_REQUEST: Unknown conversation_ref.']);
    const notTask = await refusal(client.request({ method: 'tools/call', params: { name: 'status', arguments: {}, task: {} } }, CreateTaskResultSchema));
    expect([notTask.code, notTask.message]).toEqual([ErrorCode.MethodNotFound, 'MCP error -32601: status does not run as a task (only ask does): call it without task.']);

    expect((await refusal(client.experimental.tasks.getTask('job_nope'))).code).toBe(ErrorCode.InvalidParams);
    expect((await refusal(taskResult(client, 'job_nope'))).message).toBe('MCP error -32602: Task not found: job_nope');
    expect((await refusal(client.experimental.tasks.cancelTask('job_nope'))).code).toBe(ErrorCode.InvalidParams);
    expect((await refusal(client.experimental.tasks.listTasks())).message).toMatch(/ChatBridge does not list tasks/);
    // A plain call is as it was.
    expect(texts(await client.callTool({ name: 'ask', arguments: { prompt: 'plain' } }))[1]).toMatch(/^echo\(agt_\w+#1\): plain$/);
  });

  it('a task outlives the MCP server that made it: another process reads, waits on and cancels it', async () => {
    const { dir, server, key } = await service();
    const first = await connect(dir, key);
    const hanging = (await askAsTask(first, { prompt: '[[hang]] ahead of it' })).task;
    const answering = (await askAsTask(first, { prompt: 'outlive me' }, { ttl: 120_000 })).task;
    await first.close();

    const second = await connect(dir, key);
    expect(await second.experimental.tasks.getTask(answering.taskId)).toMatchObject({ status: 'working', ttl: 120_000, createdAt: answering.createdAt });
    const result = taskResult(second, answering.taskId);
    expect((await second.experimental.tasks.cancelTask(hanging.taskId)).status).toBe('cancelled');
    expect((await api(server, key, `/v1/completions/${hanging.taskId}`)).status).toBe('cancelled');
    expect(texts(await result)[1]).toMatch(/^echo\(agt_\w+#1\): outlive me$/);
    expect((await second.experimental.tasks.getTask(answering.taskId)).status).toBe('completed');
  });
});
