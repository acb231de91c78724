/**
 * The schema compilers every server of a process shares (main/api/schema-compilers.ts): a
 * second server with the same routes validates and serialises as the first, and servers
 * built with other options or other shared schemas get compilers of their own. Each schema is
 * compiled when a request first needs it.
 */
import Fastify, { type FastifyServerOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { SHARED_COMPILERS } from '../../main/api/schema-compilers.js';

const Body = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false } as const;
const Reply = { type: 'object', properties: { doubled: { type: 'number' } } } as const;

async function server(ajv: FastifyServerOptions['ajv'] = { customOptions: { coerceTypes: false, removeAdditional: false } }) {
  const app = Fastify({ logger: false, schemaController: SHARED_COMPILERS, ajv });
  // The reply carries a field the schema leaves out: the serialiser drops it.
  app.post('/double', { schema: { body: Body, response: { 200: Reply } } }, async (request) => ({ doubled: (request.body as { n: number }).n * 2, secret: 'x' }));
  await app.ready();
  return app;
}

const post = (app: Awaited<ReturnType<typeof server>>, payload: unknown) => app.inject({ method: 'POST', url: '/double', payload: payload as object });

describe('the compilers every server shares', () => {
  it('validate and serialise alike in a second server of the same routes', async () => {
    for (const app of [await server(), await server()]) {
      expect((await post(app, { n: 2 })).json()).toEqual({ doubled: 4 });
      expect((await post(app, { n: '2' })).statusCode).toBe(400);
      expect((await post(app, { n: 2, extra: 1 })).statusCode).toBe(400);
      await app.close();
    }
  });

  it("keep apart servers whose validator options differ: one coerces, the other's does not", async () => {
    const coercing = await server({ customOptions: { coerceTypes: true, removeAdditional: false } });
    const strict = await server();
    expect((await post(coercing, { n: '2' })).json()).toEqual({ doubled: 4 });
    expect((await post(strict, { n: '2' })).statusCode).toBe(400);
    await Promise.all([coercing.close(), strict.close()]);
  });

  it('keep apart servers with other shared schemas: a reference resolves to each server’s own', async () => {
    // One response schema object for both, as a module constant would be.
    const thing = { $ref: 'thing#' };
    const withShared = async (shape: object) => {
      const app = Fastify({ logger: false, schemaController: SHARED_COMPILERS });
      app.addSchema({ $id: 'thing', ...shape });
      app.get('/thing', { schema: { response: { 200: thing } } }, async () => ({ a: 1, b: 2 }));
      await app.ready();
      return app;
    };
    const onlyA = await withShared({ type: 'object', properties: { a: { type: 'number' } } });
    const onlyB = await withShared({ type: 'object', properties: { b: { type: 'number' } } });
    expect((await onlyA.inject('/thing')).json()).toEqual({ a: 1 });
    expect((await onlyB.inject('/thing')).json()).toEqual({ b: 2 });
    await Promise.all([onlyA.close(), onlyB.close()]);
  });

  it("compile a route's schemas for its first request, not as the server starts", async () => {
    const app = Fastify({ logger: false, schemaController: SHARED_COMPILERS });
    // No schema compiler accepts a type that does not exist: the start would throw, were it compiled there.
    app.post('/broken', { schema: { body: { type: 'nonsense' } } }, async () => ({}));
    app.post('/double', { schema: { body: Body, response: { 200: Reply } } }, async (request) => ({ doubled: (request.body as { n: number }).n * 2 }));
    await app.ready();
    expect((await app.inject({ method: 'POST', url: '/double', payload: { n: 3 } })).json()).toEqual({ doubled: 6 });
    expect((await app.inject({ method: 'POST', url: '/broken', payload: {} })).statusCode).toBe(500);
    await app.close();
  });
});
