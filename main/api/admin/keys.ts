import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from '../../contract/schemas.js';
import { KeyCreate, KeyCreated, KeyView } from '../../contract/admin/keys.js';
import { IdParams, ok } from '../../contract/admin/shared.js';

/** What these routes ask of the application layer (main/service/admin/keys.ts). */
export interface KeysPort {
  list(): KeyView[];
  create(input: KeyCreate): Promise<{ key: KeyView; secret: string }>;
  revoke(id: string): Promise<KeyView>;
  /** The command line's own key (chatbridge ask), made once and kept in the data folder. */
  commandLine(): Promise<{ key: KeyView; secret: string }>;
}

/** /admin/v1/keys: the API keys, listed, created and revoked. */
export async function keyRoutes(app: FastifyInstance, { keys }: { keys: KeysPort }): Promise<void> {
  app.get('/keys', { schema: { summary: 'API keys', response: ok(Type.Array(KeyView)) } }, async () => keys.list());

  app.post<{ Body: KeyCreate }>(
    '/keys',
    { schema: { summary: 'Create an API key (its secret is shown once)', body: KeyCreate, response: { 201: KeyCreated, default: ErrorEnvelope } } },
    async (request, reply) => reply.code(201).send(await keys.create(request.body)),
  );

  app.post(
    '/keys/command-line',
    { schema: { summary: "The command line's own key: the one kept in the data folder, or a new one if it no longer works", response: ok(KeyCreated) } },
    async () => keys.commandLine(),
  );

  app.delete<{ Params: { id: string } }>(
    '/keys/:id',
    { schema: { summary: 'Revoke an API key', params: IdParams, response: ok(KeyView) } },
    async (request) => keys.revoke(request.params.id),
  );
}
