/** The messages of the operations routes: liveness, readiness, and the server's proof that it holds the data dir. */
import { Type, type Static } from '@sinclair/typebox';

/** GET /healthz and /readyz: up or down, and when down one word for why. */
export const Health = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  reason: Type.Optional(Type.Union([Type.Literal('database'), Type.Literal('agents')], { description: 'Why it is not ready' })),
});
export type Health = Static<typeof Health>;

/** A command's challenge to the server at the address in server.json (see serverProof). */
export const ProofQuery = Type.Object(
  { nonce: Type.String({ pattern: '^[A-Za-z0-9_-]{22,128}$', description: 'Random, fresh for each check' }) },
  { additionalProperties: false },
);
export const ProofView = Type.Object({ proof: Type.String({ description: 'base64url HMAC-SHA256 keyed by the admin token' }) });
