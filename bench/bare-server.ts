/**
 * The baseline of bench/submit-and-get: bare fastify routes on the same paths as the
 * service, in their own process, with no auth, validation or database. Each answers the
 * body it was given (a response the service really sent), so the bytes on the wire match.
 *   node dist/bench/bare-server.js --post-body JSON --get-body JSON
 * Prints "listening on URL" like the service.
 */
import Fastify from 'fastify';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { 'post-body': { type: 'string' }, 'get-body': { type: 'string' } } });
const postBody = JSON.parse(values['post-body'] ?? '{}') as Record<string, unknown>;
const getBody = JSON.parse(values['get-body'] ?? '{}') as Record<string, unknown>;

const app = Fastify({ logger: false, keepAliveTimeout: 65_000 });
// The request body is parsed (fastify's JSON parser) as the service's is; its content is ignored.
app.post('/v1/completions', async (_request, reply) => reply.code(202).send(postBody));
app.get('/v1/completions/:id', async () => getBody);

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');
process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
