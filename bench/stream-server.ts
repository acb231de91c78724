/**
 * The service for bench/streams: `serve` on a data dir, with `--agents N` agents that tell
 * the answer in timed pieces. A piece's text is the moment its agent called onDelta (epoch
 * ms, `⟨…⟩`), so a client on the same machine reads each piece's delay from the page's render
 * (which onDelta stands for) to its receipt. The prompt `clock=PIECES/EVERY_MS/FIRST_MS`
 * says how many pieces, how far apart, and after how long the first comes.
 *   node dist/bench/stream-server.js --data-dir DIR --agents N
 * Prints "listening on URL" like serve; stops on a signal as serve does.
 */
import { parseArgs } from 'node:util';
import { buildServer } from '../main/api/server.js';
import { stopOnSignals } from '../main/cli/stop-signals.js';
import type { Agent, AgentResult, AgentTask } from '../main/core/agent.js';
import { Service } from '../main/service/service.js';

/** Now, in epoch ms to the microsecond: the same clock in every process of the machine. */
const epochMs = () => performance.timeOrigin + performance.now();

class ClockAgent implements Agent {
  readonly provider = 'chatgpt' as const;
  constructor(readonly id: string) {}
  readiness() {
    return 'idle' as const;
  }
  onChange(): void {}
  async run(task: AgentTask): Promise<AgentResult> {
    const conversation = `bench://${this.id}/${task.label}`;
    task.onSent?.({ conversation, turnsBefore: 0 });
    const [pieces, everyMs, firstMs] = (/clock=(\d+)\/(\d+)\/(\d+)/.exec(task.prompt) ?? [0, 0, 0, 0]).slice(1).map(Number) as [number, number, number];
    let text = '';
    await sleep(firstMs, task.signal);
    for (let i = 0; i < pieces; i++) {
      const piece = `⟨${epochMs().toFixed(3)}⟩`;
      text += piece;
      task.onDelta?.(piece);
      await sleep(everyMs, task.signal);
    }
    return { text, conversation, modelUsed: null };
  }
  collect(): Promise<AgentResult> {
    return Promise.reject(new Error('bench agents collect nothing'));
  }
  async close(): Promise<void> {}
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, agents: { type: 'string' } } });
const service = await Service.start({ dataDir: values['data-dir']!, http: buildServer, port: 0 });
for (let i = 1; i <= Number(values.agents ?? 1); i++) service.pool.attach(new ClockAgent(service.pool.create('chatgpt', `clock-${i}`).id));
stopOnSignals(service, 0, []);
process.stdout.write(`listening on ${service.baseUrl}\n`);
