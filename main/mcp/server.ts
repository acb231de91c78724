import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, GetTaskPayloadRequestSchema, ListToolsRequestSchema, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { ChatBridgeClient } from '../client/index.js';
import { VERSION } from '../core/package-root.js';
import { JobTaskStore, rpcError, startTask } from './tasks.js';
import { callTool, listedTools } from './tools.js';

export interface McpOptions {
  /** A client of the running service, made per call: the service may have restarted on another port. */
  connect(): Promise<ChatBridgeClient>;
  /** How long `ask` waits for an answer before handing back the job id instead. */
  maxWaitMs: number;
}

const INSTRUCTIONS =
  "ChatBridge runs prompts on the user's own logged-in chat accounts (ChatGPT, Claude, Gemini, DeepSeek, Qwen, Perplexity), " +
  'one job at a time per account, through a durable queue. Use ask for a second opinion or another model’s view; status shows ' +
  'which providers have a free account. Every ask is a real prompt in the user’s account and counts against their hourly caps.';

/**
 * The MCP server of `chatbridge mcp`: the four tools of tools.ts over the SDK's protocol
 * layer, and ask as an MCP task for clients that ask for one (tasks.ts). The low-level
 * `Server` rather than `McpServer`, because McpServer takes zod schemas and the project
 * writes each message's schema once, with TypeBox.
 */
export function mcpServer(options: McpOptions): Server {
  const tasks = new JobTaskStore(options.connect);
  const server = new Server(
    { name: 'chatbridge', version: VERSION },
    {
      // Tasks of tools/call, cancellable; no `list` (JobTaskStore.listTasks says why).
      capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
      instructions: INSTRUCTIONS,
      // The SDK answers tasks/get and tasks/cancel from the store, which reads the jobs.
      taskStore: tasks,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // The models offered now, when the service answers; the tools are listed all the same when it does not.
    const models = await options
      .connect()
      .then((client) => client.models())
      .then((list) => list.data.map((m) => m.id))
      .catch(() => []);
    return { tools: listedTools(models) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    let client: ChatBridgeClient;
    try {
      client = await options.connect();
    } catch (error) {
      const message = `NETWORK_ERROR: ${(error as Error).message}`;
      if (request.params.task) throw rpcError(ErrorCode.InternalError, message);
      return { content: [{ type: 'text', text: message }], isError: true };
    }
    if (request.params.task) return startTask(request.params, client, extra);
    const token = request.params._meta?.progressToken;
    let step = 0;
    const progress = (message: string) => {
      if (token === undefined) return;
      void extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } })
        .catch(() => {}); // a client that went away misses a progress report, nothing more
    };
    return callTool(request.params.name, request.params.arguments, { client, signal: extra.signal, progress, maxWaitMs: options.maxWaitMs });
  });

  // In place of the SDK's tasks/result, which polls the store at the task's pollInterval: the
  // job's events tell its end at once.
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const result = await tasks.result(request.params.taskId, extra.signal);
    return { ...result, _meta: { [RELATED_TASK_META_KEY]: { taskId: request.params.taskId } } };
  });

  return server;
}
