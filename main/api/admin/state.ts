import type { FastifyInstance } from 'fastify';
import { ok } from '../../contract/admin/shared.js';
import { AdminState, SettingsPatch } from '../../contract/admin/state.js';

/** What these routes (and the live view's first `state`) ask of the application layer (main/service/admin/state.ts). */
export interface StatePort {
  read(): Promise<AdminState>;
  updateSettings(patch: SettingsPatch): Promise<AdminState>;
}

/** GET /admin/v1/state, PATCH /admin/v1/settings. */
export async function stateRoutes(app: FastifyInstance, { state }: { state: StatePort }): Promise<void> {
  app.get('/state', { schema: { summary: 'Agents, settings and status', response: ok(AdminState) } }, async () => state.read());

  app.patch<{ Body: SettingsPatch }>(
    '/settings',
    { schema: { summary: 'Caps, rotation, pause', body: SettingsPatch, response: ok(AdminState) } },
    async (request) => state.updateSettings(request.body),
  );
}
