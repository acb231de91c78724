import { sql as jobsKeysAgents } from './001-jobs-keys-agents.js';
import { sql as webhooks } from './002-webhooks.js';
import { sql as attemptDetail } from './003-attempt-detail.js';
import { sql as retention } from './004-retention.js';
import { sql as accounts } from './005-accounts.js';
import { sql as agentPauseProxy } from './006-agent-pause-proxy.js';
import { sql as agentRest } from './007-agent-rest.js';
import { sql as accountSecrets } from './008-account-secrets.js';
import { sql as variants } from './009-variants.js';
import { sql as sentPrompt } from './010-sent-prompt.js';
import { sql as jobDeltas } from './011-job-deltas.js';
import { sql as jobFiles } from './012-job-files.js';
import { sql as jobFilesStaged } from './013-job-files-staged.js';

/**
 * The SQLite schema's steps, one numbered file each: each moves the schema one version
 * forward, and `PRAGMA user_version` records how far a database has come (db.ts, migrate).
 * Append a file and list it here; never edit one: installed databases have run it. The
 * PostgreSQL steps (../../postgres/migrations/) keep the same tables and columns, but for
 * what only several instances need (test/store/schema-parity.test.ts).
 */
export const MIGRATIONS: readonly string[] = [jobsKeysAgents, webhooks, attemptDetail, retention, accounts, agentPauseProxy, agentRest, accountSecrets, variants, sentPrompt, jobDeltas, jobFiles, jobFilesStaged];
