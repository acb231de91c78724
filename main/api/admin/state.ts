import type { FastifyInstance } from 'fastify';
import type { StateConsole } from '../../service/admin/state.js';
import { ok } from './shared-schemas.js';
import { AdminState, SettingsPatch } from './state-schemas.js';

/** GET /admin/v1/state, PATCH /admin/v1/settings. */
export async function stateRoutes(app: FastifyInstance, { state }: { state: StateConsole }): Promise<void> {
  app.get('/state', { schema: { summary: 'Agents, settings and status', response: ok(AdminState) } }, async () => state.read());

  app.patch<{ Body: SettingsPatch }>(
    '/settings',
    { schema: { summary: 'Caps, rotation, pause', body: SettingsPatch, response: ok(AdminState) } },
    async (request) => state.updateSettings(request.body),
  );
}
