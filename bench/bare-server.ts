/**
 * The baselines of bench/submit-and-get: bare fastify routes on the same paths as the
 * service, in their own process, with no auth, validation or database. Each answers the
 * body it was given (a response the service really sent), so the bytes on the wire match.
 *   node dist/bench/bare-server.js --post-body JSON --get-body JSON [--durable-dir DIR]
 * With --durable-dir, a submission is also written as the service writes it, and answered
 * once it is on disk: the job store's own insert, group commit and log flush, in a data dir
 * of its own, and nothing else of the service (no key, no checks, no events, no logs). That
 * is the floor the durable work allows: what the service costs above it is its own. A
 * DELETE cancels a job, as the service's does, so that its queue can be emptied alike.
 * Prints "listening on URL" like the service.
 */
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { systemClock } from '../main/core/clock.js';
import { randomIds } from '../main/core/ids.js';
import { openSqliteStorage } from '../main/storage/sqlite/sqlite-storage.js';

const { values } = parseArgs({ options: { 'post-body': { type: 'string' }, 'get-body': { type: 'string' }, 'durable-dir': { type: 'string' } } });
const postBody = JSON.parse(values['post-body'] ?? '{}') as Record<string, unknown>;
const getBody = JSON.parse(values['get-body'] ?? '{}') as Record<string, unknown>;
const storage = values['durable-dir'] ? openSqliteStorage({ dataDir: values['durable-dir'], clock: systemClock, ids: randomIds }) : null;

const app = Fastify({ logger: false, keepAliveTimeout: 65_000 });
// The request body is parsed (fastify's JSON parser) as the service's is; without a data dir its content is ignored.
app.post('/v1/completions', async (request, reply) => {
  if (!storage) return reply.code(202).send(postBody);
  const { prompt, callback_url } = request.body as { prompt: string; callback_url: string | null };
  const now = systemClock.now();
  const job = {
    id: randomIds.job(now),
    prompt,
    req_provider: null,
    req_agent_id: null,
    conversation_in: null,
    priority: 0,
    timeout_ms: 600_000,
    deadline_at: now + 3_600_000,
    max_attempts: 3,
    callback_url,
    metadata: '{}',
    created_at: now,
    api_key_id: 'key_floor',
  };
  // The queue is emptied between rounds, as the service's is: its limit is never reached.
  await storage.jobs.submit({ job, queuedLimit: Number.MAX_SAFE_INTEGER });
  // The job's own id (as long as the service's), for the DELETE that empties the queue.
  return reply.code(202).send({ ...postBody, id: job.id });
});
app.get('/v1/completions/:id', async () => getBody);
app.delete<{ Params: { id: string } }>('/v1/completions/:id', async (request, reply) => {
  await storage?.jobs.cancel(request.params.id, systemClock.now());
  return reply.code(200).send({});
});

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');
process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
const stop = () => void app.close().then(() => storage?.close()).then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
