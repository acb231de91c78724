/**
 * Chat streaming in real Chromium against the simulated ChatGPT: the official openai client
 * reads an answer rendered over six seconds in several chunks that join to the same text as
 * the prompt answered whole, and a caller who closes its stream mid-answer cancels the job
 * within 2 s (decisions.md), which the agent relays to the page (Stop is pressed).
 */
import OpenAI from 'openai';
import { answerTo } from '../../agents/simulator/answer.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { describe, expect, it } from 'vitest';
import { startE2E } from '../support/e2e.js';
import { openSse } from '../support/sse-client.js';
import { jobIdWhere } from '../support/store.js';
import { until } from '../support/until.js';

describe('chat streaming on the simulated site', () => {
  it('streams the answer to the openai client in several chunks, and a stream closed mid-answer cancels the job within 2 s and presses Stop', async () => {
    const e = await startE2E('chatgpt', 1);
    try {
      await e.driver.settings.setStreaming(true);
      const client = new OpenAI({ apiKey: e.key, baseURL: `${e.url}/v1`, maxRetries: 0, timeout: 60_000 });
      // Paragraphs rendered over 6 s: the agent tells each once the page has finished it and two
      // readings agree (the simulated answer's own first block is code, which is read only at the
      // end). A second a paragraph leaves those readings room on a loaded machine (over 3 s, a
      // run with four browser files at once got its answer in two pieces).
      const paragraphs = ['One', 'Two', 'Three', 'Four', 'Five', 'Six'].map((n) => `Paragraph ${n} of the streamed answer, plain words only.`);
      const prompt = `Stream an answer [[sim:ms=6000]][[sim:echo-markdown]]\n${paragraphs.join('\n\n')}`;
      const messages = [{ role: 'user' as const, content: prompt }];
      const stream = await client.chat.completions.create({ model: 'service/chatgpt', messages, stream: true });
      const pieces: string[] = [];
      let id = '';
      for await (const chunk of stream) {
        id = chunk.id;
        if (chunk.choices[0]?.delta.content) pieces.push(chunk.choices[0].delta.content);
      }
      const job = (await e.api('GET', `/v1/completions/${id}`)).body;
      expect(job.status).toBe('succeeded');
      expect(pieces.length).toBeGreaterThanOrEqual(3);
      expect(pieces.join('')).toBe(job.response);
      // The same prompt answered whole (a new conversation: turn 1 again) is the same text.
      const whole = await client.chat.completions.create({ model: 'service/chatgpt', messages });
      expect(pieces.join('')).toBe(whole.choices[0]!.message.content);
      expect(whole.choices[0]!.message.content).toBe(answerTo(SIM_SITES.chatgpt.name, 'chatgpt', prompt, 1));

      const s = await openSse(`${e.url}/v1/chat/completions`, { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' }, {
        method: 'POST',
        body: JSON.stringify({ model: 'service/chatgpt', messages: [{ role: 'user', content: 'A long answer [[sim:ms=30000]]' }], stream: true }),
      });
      const sent = await until(() => e.sim.log.sends.find((x) => x.prompt.startsWith('A long answer')), 30_000, 'the prompt on the page');
      const long = (await jobIdWhere(e.driver, (prompt) => prompt.startsWith('A long answer')))!;
      await until(() => s.events.some((x) => x.data?.includes('"role":"assistant"')));
      s.close();
      await until(async () => (await e.driver.job(long))?.status === 'cancelled', 5_000, 'the job cancelled within 5 s');
      await until(() => e.sim.log.stops.some((x) => x.turn === sent.turn), 10_000, 'the Stop press');
    } finally {
      await e.stop();
    }
  }, 120_000);
});
