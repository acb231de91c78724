import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ChatBridgeClient } from '../client/index.js';
import { VERSION } from '../core/package-root.js';
import { callTool, listedTools, type ToolResult } from './tools.js';

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
 * layer. The low-level `Server` rather than `McpServer`, because McpServer takes zod
 * schemas and the project writes each message's schema once, with TypeBox.
 */
export function mcpServer(options: McpOptions): Server {
  const server = new Server({ name: 'chatbridge', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // The models offered now, when the service answers; the tools are listed all the same when it does not.
    const models = await options
      .connect()
      .then((client) => client.models())
      .then((list) => list.data.map((m) => m.id))
      .catch(() => []);
    return { tools: listedTools(models) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => {
    let client: ChatBridgeClient;
    try {
      client = await options.connect();
    } catch (error) {
      return { content: [{ type: 'text', text: `NETWORK_ERROR: ${(error as Error).message}` }], isError: true };
    }
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

  return server;
}
