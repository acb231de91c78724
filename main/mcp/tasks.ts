import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  ErrorCode,
  type CallToolRequest,
  type CreateTaskResult,
  type ServerNotification,
  type ServerRequest,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { ChatBridgeError, type ChatBridgeClient, type Job } from '../client/index.js';
import { answerOf, invalidCall, submitAsk, TOOLS, whereItStands, type AskArguments, type ToolResult } from './tools.js';

/**
 * MCP tasks (specification 2025-11-25, experimental) for `ask`: a client that puts `task` on
 * its tools/call gets the job's task at once and polls it, instead of holding a call open
 * for minutes that its host would cut at about 60 s. The task is the job itself: its id is
 * the job id, its status the job's, its result the answer, its cancel the job's. Nothing is
 * kept in this process, so a task outlives it: any `chatbridge mcp` with the same key can
 * read, wait on or cancel it.
 */

/** How often a client should ask tasks/get: an answer takes seconds to many minutes, and tasks/result waits for the end anyway. */
const POLL_INTERVAL_MS = 5_000;

/**
 * The longest ttl a task is given, counted from its creation. A job keeps its answer for the
 * retention period counted from its end, whose shortest setting is one day (settings-store.ts
 * checkRetention), and an API key cannot read the setting: one day is what every install keeps.
 */
const MAX_TTL_MS = 86_400_000;

/** Where the job keeps its task's ttl, so every MCP server process reports the same one. */
const TTL_KEY = 'mcp_task_ttl_ms';

/**
 * tools/call with `task`: ask's job queued and its task handed back at once. No job, no
 * task: a call refused before the job exists is a JSON-RPC error, as the specification has
 * it, with the same words and code its plain call's tool error would carry.
 */
export async function startTask(
  params: CallToolRequest['params'],
  client: ChatBridgeClient,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<CreateTaskResult> {
  if (TOOLS.find((t) => t.name === params.name && !t.execution)) {
    // The specification's answer to a task asked of a tool whose taskSupport is forbidden.
    throw rpcError(ErrorCode.MethodNotFound, `${params.name} does not run as a task (only ask does): call it without task.`);
  }
  const problem = invalidCall(params.name, params.arguments);
  if (problem) throw rpcError(ErrorCode.InvalidParams, `INVALID_REQUEST: ${problem}`);
  const requested = params.task?.ttl;
  const ttl = requested !== undefined && requested > 0 ? Math.min(requested, MAX_TTL_MS) : MAX_TTL_MS;
  const job = await submitAsk(params.arguments as unknown as AskArguments, client, { [TTL_KEY]: ttl }).catch(rethrown);
  return { task: await extra.taskStore!.createTask({ context: { job } }) };
}

/**
 * The SDK's TaskStore over the service's jobs, read through the API with the MCP key (which
 * is the access check: the service shows a key only its account's jobs, whatever MCP
 * session asks). The SDK answers tasks/get and tasks/cancel with it; tasks/result is
 * `result` (server.ts), which follows the job's events rather than polling.
 */
export class JobTaskStore implements TaskStore {
  constructor(private readonly connect: () => Promise<ChatBridgeClient>) {}

  /** The task of the job startTask just queued, which `context.job` carries: the job is the record. */
  async createTask(options: CreateTaskOptions): Promise<Task> {
    return taskOf(options.context!.job as Job);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const client = await this.connect().catch(rethrown);
    const job = await client.get(taskId).catch((error: unknown) => (isNotFound(error) ? null : rethrown(error)));
    return job && taskOf(job);
  }

  /** The job's answer once it has ended (its events followed until then), as the plain call returns it. */
  async result(taskId: string, signal?: AbortSignal): Promise<ToolResult> {
    const client = await this.connect().catch(rethrown);
    let last: Job | null = null;
    try {
      for await (const event of client.follow(taskId, { signal })) if (event.type === 'job') last = event.job;
    } catch (error) {
      if (isNotFound(error)) throw rpcError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      rethrown(error);
    }
    return answerOf(last!);
  }

  /** `result` without a signal, for the SDK's own tasks/result (server.ts puts one in its place that passes the request's). */
  getTaskResult(taskId: string): Promise<ToolResult> {
    return this.result(taskId);
  }

  /** The SDK's tasks/cancel, once it has checked the task is not over: the job's cancel. */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') throw rpcError(ErrorCode.InvalidRequest, `A job's status is the service's; it cannot be set to ${status}.`);
    const client = await this.connect().catch(rethrown);
    await client.cancel(taskId).catch(rethrown);
  }

  /** Only a tool handler storing its own result calls this; the job's answer is stored by the service. */
  async storeTaskResult(): Promise<void> {
    throw rpcError(ErrorCode.InvalidRequest, 'A job stores its own answer.');
  }

  /**
   * Not offered (the capability leaves out `list`): the /v1 API reads a key's jobs by id only,
   * and the admin API's list is the dashboard token's, which the MCP server never holds.
   */
  async listTasks(): Promise<never> {
    throw new Error('ChatBridge does not list tasks: keep the task ids tools/call returned.');
  }
}

/** The job as a task: queued and dispatched are working, succeeded completed, failed and expired failed. */
function taskOf(job: Job): Task {
  const ttl = job.metadata[TTL_KEY];
  const started = job.queue_ms === null ? null : Date.parse(job.created_at) + job.queue_ms;
  return {
    taskId: job.id,
    status: STATUS[job.status],
    statusMessage: statusMessage(job),
    ttl: typeof ttl === 'number' ? ttl : MAX_TTL_MS,
    createdAt: job.created_at,
    // The last change the job shows: its end, its start, or its creation.
    lastUpdatedAt: job.finished_at ?? (started === null ? job.created_at : new Date(started).toISOString()),
    pollInterval: POLL_INTERVAL_MS,
  };
}

const STATUS: Record<Job['status'], Task['status']> = {
  queued: 'working',
  dispatched: 'working',
  succeeded: 'completed',
  failed: 'failed',
  expired: 'failed',
  cancelled: 'cancelled',
};

function statusMessage(job: Job): string {
  if (job.status === 'queued' || job.status === 'dispatched') return whereItStands(job);
  if (job.status === 'succeeded') return `Answered by ${job.provider}; tasks/result gives the answer.`;
  return answerOf(job).content[0]!.text;
}

/**
 * A JSON-RPC error for the SDK to send: its code, and its message as is (an McpError's
 * message already starts "MCP error N:", which the client's McpError would say again).
 */
export function rpcError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const isNotFound = (error: unknown) => error instanceof ChatBridgeError && error.code === 'NOT_FOUND';

/** A failure of the service or of reaching it as a JSON-RPC error, with the contract's code in its words. */
function rethrown(error: unknown): never {
  if (error instanceof ChatBridgeError) {
    throw rpcError(error.code === 'INVALID_REQUEST' ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${error.code}: ${error.message}`);
  }
  throw error;
}
