/**
 * Every message of the dashboard's API (/admin/v1), for its clients: the dashboard
 * (renderer/src/api.ts) and the command line type their calls with these; the routes of
 * main/api/admin/ validate with them. One file a resource, written once, here.
 */
export * from './accounts.js';
export * from './agents.js';
export * from './jobs.js';
export * from './keys.js';
export * from './logs.js';
export * from './state.js';
export * from './usage.js';
export * from './webhooks.js';
export { ViewFrame, ViewInput } from '../../core/screen.js';
