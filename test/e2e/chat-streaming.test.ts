/**
 * Chat streaming in real Chromium against the simulated ChatGPT: the official openai client
 * reads the answer as chunks that join to the job's response, and a caller who closes its
 * stream mid-answer cancels the job, which the agent relays to the page (Stop is pressed).
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startE2E } from '../support/e2e.js';
import { openSse } from '../support/sse-client.js';
import { jobIdWhere } from '../support/store.js';
import { until } from '../support/until.js';

describe('chat streaming on the simulated site', () => {
  it('streams the answer to the openai client, and a stream closed mid-answer cancels the job and presses Stop', async () => {
    const e = await startE2E('chatgpt', 1);
    try {
      await e.driver.settings.setStreaming(true);
      const client = new OpenAI({ apiKey: e.key, baseURL: `${e.url}/v1`, maxRetries: 0, timeout: 60_000 });
      const stream = await client.chat.completions.create({ model: 'service/chatgpt', messages: [{ role: 'user', content: 'Stream a short answer' }], stream: true });
      let content = '';
      let id = '';
      for await (const chunk of stream) {
        id = chunk.id;
        content += chunk.choices[0]?.delta.content ?? '';
      }
      const job = (await e.api('GET', `/v1/completions/${id}`)).body;
      expect(job.status).toBe('succeeded');
      expect(content).toBe(job.response);

      const s = await openSse(`${e.url}/v1/chat/completions`, { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' }, {
        method: 'POST',
        body: JSON.stringify({ model: 'service/chatgpt', messages: [{ role: 'user', content: 'A long answer [[sim:ms=8000]]' }], stream: true }),
      });
      const sent = await until(() => e.sim.log.sends.find((x) => x.prompt.startsWith('A long answer')), 30_000, 'the prompt on the page');
      const long = (await jobIdWhere(e.driver, (prompt) => prompt.startsWith('A long answer')))!;
      await until(() => s.events.some((x) => x.data?.includes('"role":"assistant"')));
      s.close();
      await until(async () => (await e.driver.job(long))?.status === 'cancelled', 5_000, 'the job cancelled');
      await until(() => e.sim.log.stops.some((x) => x.turn === sent.turn), 10_000, 'the Stop press');
    } finally {
      await e.stop();
    }
  }, 120_000);
});
