import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { mcpServer } from '../mcp/server.js';
import { parse, parseDuration, UsageError } from './args.js';
import { KEY_HINT, serviceClient, serviceTarget } from './connection.js';

/**
 * `chatbridge mcp`: a Model Context Protocol server on stdin/stdout for coding agents,
 * calling the running service with CHATBRIDGE_API_KEY. It never uses the dashboard's token:
 * the agent that starts it gets exactly the key it was given, revocable on its own.
 */
export async function mcp(args: string[]): Promise<void> {
  const { values } = parse(args, { 'data-dir': { type: 'string' }, 'max-wait': { type: 'string' } });
  const apiKey = process.env.CHATBRIDGE_API_KEY;
  if (!apiKey) throw new UsageError(`No API key: ${KEY_HINT} in the MCP server's environment.`);
  const maxWaitMs = values['max-wait'] === undefined ? 300_000 : parseDuration(values['max-wait']);
  const server = mcpServer({
    // Found again on each call (the service may have restarted on another port), the key sent only on connections proven to reach it.
    connect: async () => serviceClient(await serviceTarget(values['data-dir'], process.env), apiKey),
    maxWaitMs,
  });
  const transport = new StdioServerTransport();
  // The client closing our stdin ends the session; jobs under way go on in the service.
  process.stdin.once('end', () => void server.close().finally(() => process.exit(0)));
  await server.connect(transport);
}
