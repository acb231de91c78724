/**
 * Files through `chatbridge ask --file` and the MCP `ask` tool's `files`, each as a process
 * against a scripted HTTP server named by CHATBRIDGE_URL: what reaches the API (each file's
 * name, type guessed from its ending, and bytes in base64), and a file that cannot be read
 * refused in one line with nothing sent. Then through the scripted service: the agent's
 * answer lists each file as it found it on disk, byte for byte.
 *
 * Needs dist/ built (`tsc` runs before `vitest run` in `npm test`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { CLI, listening, runCommand, SCRIPTED_SERVER, trackProcesses } from '../support/processes.js';
import { scriptedHttp, type ScriptedHttp } from '../support/scripted-http.js';

const JOB = {
  id: 'job_1', status: 'succeeded', response: 'Read them.', provider: 'claude', agent_id: 'agt_1', agent_name: 'claude-1',
  conversation_ref: 'cv_1', attempts: 1, queue_ms: 0, run_ms: 10, created_at: '2026-11-28T10:00:00Z', finished_at: '2026-11-28T10:00:01Z',
  error: null, metadata: {},
};

let dir: string;
let fake: ScriptedHttp;
const files = { png: '', notes: '', blob: '' };
const bytes = { png: randomBytes(64), notes: Buffer.from('Grüße, 世界\n'), blob: randomBytes(300 * 1024) };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chatbridge-ask-files-'));
  files.png = join(dir, 'shot.png');
  files.notes = join(dir, 'notes été.md');
  files.blob = join(dir, 'blob.weird');
  writeFileSync(files.png, bytes.png);
  writeFileSync(files.notes, bytes.notes);
  writeFileSync(files.blob, bytes.blob);
  // The job answers at once: a submission gets 202, any read the finished job.
  fake = await scriptedHttp((r) => (r.method === 'POST' ? { status: 202, body: { id: 'job_1', status: 'queued', created_at: JOB.created_at } } : { status: 200, body: JOB }));
});
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  fake.requests.length = 0;
});

const ENV = () => ({ CHATBRIDGE_URL: fake.url, CHATBRIDGE_API_KEY: 'cb_fake' });
const posted = () => fake.requests.filter((r) => r.method === 'POST').map((r) => r.body);
const expected = [
  { filename: 'shot.png', media_type: 'image/png', data: bytes.png.toString('base64') },
  { filename: 'notes été.md', media_type: 'text/markdown', data: bytes.notes.toString('base64') },
  { filename: 'blob.weird', media_type: 'application/octet-stream', data: bytes.blob.toString('base64') },
];

describe('chatbridge ask --file', () => {
  it('sends each file, in order, its type guessed from its name', async () => {
    const r = await runCommand(['ask', 'What do these say?', '--file', files.png, '--file', files.notes, '--file', files.blob], dir, ENV());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Read them.\n');
    const bodies = posted();
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) expect(body.attachments).toEqual(expected);
  });

  it('refuses a missing file, a folder or an empty file in one line, sending nothing', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    for (const [path, words] of [[join(dir, 'nope.pdf'), 'no such file'], [dir, 'not a file'], [empty, 'the file is empty']] as const) {
      const r = await runCommand(['ask', 'x', '--file', files.png, '--file', path], dir, ENV());
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`--file ${path}: ${words}.`)]);
    }
    expect(fake.requests).toEqual([]);
  });
});

describe('the MCP ask tool with files', () => {
  async function connect(): Promise<Client> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env: { ...(process.env as Record<string, string>), ...ENV() } });
    const client = new Client({ name: 'chatbridge-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const texts = (r: unknown) => (r as { content: { text: string }[] }).content.map((c) => c.text);

  it('reads the files by path and sends them with the prompt', async () => {
    const client = await connect();
    const ask = (await client.listTools()).tools.find((t) => t.name === 'ask')!;
    expect(Object.keys((ask.inputSchema.properties as Record<string, unknown>) ?? {})).toContain('files');
    const result = await client.callTool({
      name: 'ask',
      arguments: { prompt: 'What do these say?', files: [{ path: files.png }, { path: files.notes }, { path: files.blob }] },
    });
    expect(result.isError, texts(result).join('\n')).toBeFalsy();
    expect(texts(result)[1]).toBe('Read them.');
    for (const body of posted()) expect(body.attachments).toEqual(expected);
    // A type given wins over the guess.
    await client.callTool({ name: 'ask', arguments: { prompt: 'x', files: [{ path: files.blob, media_type: 'application/pdf' }] } });
    expect(posted().at(-1).attachments[0].media_type).toBe('application/pdf');
  });

  it('refuses a relative path, a missing file and more than 10 files as tool errors, sending nothing', async () => {
    const client = await connect();
    const calls = [
      [{ path: 'shot.png' }],
      [{ path: join(dir, 'missing.png') }],
      Array.from({ length: 11 }, () => ({ path: files.png })),
    ];
    const answers = [];
    for (const list of calls) answers.push(await client.callTool({ name: 'ask', arguments: { prompt: 'x', files: list } }));
    expect(answers.map((a) => a.isError)).toEqual([true, true, true]);
    expect(texts(answers[0])[0]).toMatch(/^INVALID_REQUEST: files\.0\.path "shot\.png" is not an absolute path/);
    expect(texts(answers[1])[0]).toMatch(/^INVALID_REQUEST: files\.0\.path ".*missing\.png": there is no such file/);
    expect(texts(answers[2])[0]).toMatch(/^INVALID_REQUEST: files/);
    expect(posted()).toEqual([]);
  });
});

describe('through the scripted service', () => {
  const procs = trackProcesses('chatbridge-ask-files-service-');
  const line = (name: string, data: Buffer) => `- attachment: ${name} (${data.length} bytes, sha256 ${createHash('sha256').update(data).digest('hex')})`;

  it('ask --file and the MCP ask tool: the answer lists every file, byte for byte', async () => {
    const home = procs.tempDir();
    const server = await listening(procs.launch([SCRIPTED_SERVER, '--data-dir', home, '--port', '0', '--agents', 'claude=1']));
    const created = await runCommand(['keys', 'create', '--name', 'files', '--scopes', 'completions:read,completions:write', '--data-dir', home], home);
    const env = { CHATBRIDGE_URL: server.url, CHATBRIDGE_API_KEY: created.stdout.trimEnd().split('\n').pop()! };
    const lines = [line('shot.png', bytes.png), line('notes été.md', bytes.notes), line('blob.weird', bytes.blob)];

    const r = await runCommand(['ask', 'What do these say?', '--file', files.png, '--file', files.notes, '--file', files.blob], home, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').slice(-3)).toEqual(lines);

    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env: { ...(process.env as Record<string, string>), ...env } });
    const client = new Client({ name: 'chatbridge-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const result = await client.callTool({ name: 'ask', arguments: { prompt: 'And now?', files: [{ path: files.notes }, { path: files.png }] } });
    const answer = (result as { content: { text: string }[] }).content[1]!.text;
    expect(answer.trimEnd().split('\n').slice(-2)).toEqual([lines[1], lines[0]]);
  });
});
