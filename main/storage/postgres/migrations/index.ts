import { sql as devicesJobs } from './001-devices-jobs.js';
import { sql as deviceLeft } from './002-device-left.js';
import { sql as settingsSecretBudgets } from './003-settings-secret-budgets.js';
import { sql as deviceAgents } from './004-device-agents.js';
import { sql as webhookClaims } from './005-webhook-claims.js';
import { sql as apiKeys } from './006-api-keys.js';
import { sql as accountSecrets } from './007-account-secrets.js';
import { sql as variants } from './008-variants.js';
import { sql as locks } from './009-locks.js';
import { sql as sentPrompt } from './010-sent-prompt.js';
import { sql as jobDeltas } from './011-job-deltas.js';
import { sql as jobFiles } from './012-job-files.js';

/**
 * The PostgreSQL schema's steps, one numbered file each: each moves the schema one version
 * forward, and `chatbridge_schema.version` records how far a database has come (schema.ts,
 * migrate). Append a file and list it here; never edit one: installed databases have run
 * it. The rows mean what the SQLite schema's rows mean (../../sqlite/migrations/); times are
 * epoch ms (test/store/schema-parity.test.ts holds the two to the same tables and columns).
 */
export const MIGRATIONS: readonly string[] = [devicesJobs, deviceLeft, settingsSecretBudgets, deviceAgents, webhookClaims, apiKeys, accountSecrets, variants, locks, sentPrompt, jobDeltas, jobFiles];
