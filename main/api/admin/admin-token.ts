import type { FastifyInstance } from 'fastify';
import type { AdminToken } from '../../keys/admin-token.js';
import { NO_CONTENT } from '../../contract/admin/shared.js';

/** POST /admin/v1/admin-token/rotate: the dashboard's own token replaced. */
export async function adminTokenRoutes(app: FastifyInstance, { adminToken }: { adminToken: AdminToken }): Promise<void> {
  app.post(
    '/admin-token/rotate',
    { schema: { summary: 'A new admin token: the dashboard link changes and open dashboards must reopen', response: NO_CONTENT } },
    async (_request, reply) => {
      adminToken.rotate();
      return reply.code(204).send();
    },
  );
}
