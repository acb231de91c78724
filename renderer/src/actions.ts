import type { AdminApi, AgentPatch, SettingsPatch } from './api.js';
import { useDashboard } from './store.js';

/*
 * Changes whose answer is shown at once, rather than when the event stream's next state
 * arrives (it is coalesced on the server, so it comes a moment later).
 */
export const changeAgent = (api: AdminApi, id: string, change: AgentPatch) => api.updateAgent(id, change).then(useDashboard.getState().putAgent);

export const changeSettings = (api: AdminApi, change: SettingsPatch) => api.updateSettings(change).then(useDashboard.getState().setAdmin);
