/**
 * Every message of the dashboard's API (/admin/v1), for its clients: the dashboard
 * (renderer/src/api.ts) and the command line type their calls with these. Each is written
 * once, beside the routes that validate with it, in main/api/admin/.
 */
export * from './admin/accounts-schemas.js';
export * from './admin/agents-schemas.js';
export * from './admin/jobs-schemas.js';
export * from './admin/keys-schemas.js';
export * from './admin/logs-schemas.js';
export * from './admin/state-schemas.js';
export * from './admin/usage-schemas.js';
export * from './admin/webhooks-schemas.js';
export { ViewFrame, ViewInput } from '../core/screen.js';
