import { CLI } from '../core/cli-name.js';
import { VERSION } from '../core/package-root.js';
import { DRIFT_KINDS } from '../../agents/simulator/client/drift-kinds.js';
import { PROVIDERS } from '../core/providers.js';

// Here, not in serve.ts: help must not load the service, its database engines and browsers
// (0.5 s against 0.1 s for `chatbridge COMMAND --help`).
const SERVE_HELP = `chatbridge serve [--profile personal|hosted] [--port N] [--host 127.0.0.1 [--allow-remote]] [--data-dir DIR] [--simulate] [--simulate-agents P=N,...]
                 [--simulate-layout P=LAYOUT,...] [--simulate-drift KIND,...]
                 [--database postgres://USER@HOST:PORT/DB [--device-name NAME] [--no-api] [--fix-grants|--keep-grants]] [--stop-grace 20s]
  The service, headless, until Ctrl-C (or SIGTERM, SIGHUP): running answers get the grace to
  finish; then one still being written is collected from its conversation after the restart,
  and a job not sent yet goes back to the queue. Ctrl-C again ends the grace at once.
  --profile P              personal (default): your own agents and keys; hosted: shared capacity
                           for many accounts (see accounts). A data dir keeps the profile it
                           was first served in
  --allow-private-webhooks hosted: let webhooks reach private, loopback and link-local receivers
                           (an operator's own network); off, only public addresses are called
  --port N                 listen on N (default 8787; 0 picks a free port)
  --host ADDR              listen on ADDR (default 127.0.0.1)
  --allow-remote           needed with a --host that is not loopback: the API is then reachable
                           from the network, in plain HTTP
  --database URL           share one queue with other instances through this PostgreSQL (also
                           CHATBRIDGE_DATABASE_URL); each instance is a device running its own
                           agents from its own data dir. Without it, SQLite in the data dir
  --device-name NAME       how this device is listed in status and the dashboard (default: host name)
  --no-api                 with --database: run this device's agents only, answering no HTTP
  --fix-grants             with --database: a database other roles can reach (connect, LISTEN)
                           is closed to them at start instead of refused
  --keep-grants            with --database: start on such a database anyway, with a warning
                           (you manage its grants yourself)
  --stop-grace T           how long a stop lets running answers finish (default 20s; 0: none)
  --simulate               run against six simulated provider sites, one agent each, in
                           <data dir>/simulator; prints its API key, the same every run
  --new-key                with --simulate: revoke the simulation's key and make a new one
  --simulate-agents P=N,…  agents per simulated provider, e.g. chatgpt=2,claude=1
  --simulate-layout P=L,…  a simulated site shows another of its provider's layouts
  --simulate-drift K,…     every simulated site drifts: ${DRIFT_KINDS.join(', ')}
  Each --simulate-… option, and --new-key, implies --simulate.`;

const DATA_DIR = 'Every command takes --data-dir DIR (default: CHATBRIDGE_DATA_DIR, else the OS data folder).';

/** `chatbridge COMMAND --help`: what each command does and takes. */
export const COMMAND_HELP: Record<string, string> = {
  start: `chatbridge start [--hidden] [--port N] [--data-dir DIR]
  The desktop app: tray, dashboard window, and the service on port 8787. Where Electron
  cannot run (no display, not installed) it says why and serves headless, as serve does.
  --hidden   start in the tray only`,
  serve: SERVE_HELP,
  agents: `chatbridge agents list [--json]
chatbridge agents add PROVIDER [--name NAME]
chatbridge agents rename ID NAME | pause ID | enable ID | remove ID | check ID
chatbridge agents set ID [--pause 20s|default] [--proxy URL|none [--proxy-password-file FILE]]
  The agents: one logged-in chat account each. Providers: ${PROVIDERS.join(', ')}.
  list     every agent with its state (live states from the running server)
  add      a new agent; the running server opens its browser at the provider's login page:
           log in through the dashboard link it prints
  rename   a new display name
  set      guardrails against bans: --pause, its least pause between jobs (jitter adds up to
           half again; default: chatbridge settings pause); --proxy, its browser's egress,
           http://, https:// or socks5://host:port; an http(s) proxy may name a user
           (http://USER@host:port), its password read from --proxy-password-file FILE
           (first line) or CHATBRIDGE_PROXY_PASSWORD, never from the command line; its
           browser restarts with it
  pause    takes no jobs until enabled (a running job finishes)
  enable   takes jobs again
  remove   deletes the agent and its login; refused while it runs a job or queued jobs
           continue one of its conversations
  check    has the agent look at its page again, and prints its state
  add, remove and check need the running server; a running server sees the others within a second.`,
  keys: `chatbridge keys create --name NAME --scopes completions:read,completions:write[,metrics:read] [--expires-in 30d] [--account ACCT_ID] [--database URL]
chatbridge keys list [--database URL]
chatbridge keys revoke KEY_ID [--database URL]
  API keys for /v1. A new key is printed once, on the last line; only its hash is stored.
  --account ACCT_ID  the account the key acts for: required in the hosted profile, refused in the personal one
  --database URL     the keys of the instances sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL);
                     they take a new key, or refuse a revoked one, at once`,
  accounts: `chatbridge accounts create --name NAME [--retention-days N|none] [--database URL]
chatbridge accounts list [--database URL]
chatbridge accounts set ACCT_ID --retention-days N|none [--database URL]
chatbridge accounts disable ACCT_ID [--database URL]
  The accounts of a hosted data dir (serve --profile hosted). create prints the new id alone on
  its last line. A disabled account's keys get 401 and its queued jobs are cancelled; a running
  server sees changes within a second.
  --retention-days N|none  finished jobs of the account lose their prompt and response after N days
  --database URL           the accounts of the instances sharing that PostgreSQL, first served with
                           --profile hosted (also CHATBRIDGE_DATABASE_URL); they apply a change at once`,
  caps: `chatbridge caps set (--global | --provider P | --agent ID) --per-hour N|none [--database URL]
  Hourly caps over a rolling hour: jobs wait (or go to another agent) once one is reached.
  --database URL  sets a global or provider cap of the instances sharing that PostgreSQL (also
                  CHATBRIDGE_DATABASE_URL); they apply it at once. An agent's cap takes --data-dir.`,
  rotation: `chatbridge rotation set round_robin|least_used|ordered|random [--database URL]
  How jobs without a provider (service/auto) choose among agents.
  --database URL  of the instances sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL)`,
  pause: `chatbridge pause [--database URL]
  Agents take no new jobs (running ones finish); jobs queue. chatbridge resume undoes it.
  --database URL  pauses every instance sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL)`,
  resume: `chatbridge resume [--database URL]
  Agents take jobs again after chatbridge pause.
  --database URL  resumes every instance sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL)`,
  status: `chatbridge status [--json]
  Agents, queue and hourly use, from the running server (GET /v1/status).`,
  sites: `chatbridge sites check [--provider P] [--send] [--json]
  Has the running server check each logged-in agent's page (of P) role by role and prints
  which cue found each role or MISSING; --send also runs a short probe prompt. Exit 1 when
  a role is missing: paste the output into a bug report after a site update.`,
  'admin-token': `chatbridge admin-token [--rotate]
  The dashboard link; --rotate makes a new token (open dashboards must reopen).`,
  dashboard: `chatbridge dashboard
  The dashboard link of the running server, signed in: serve prints it only on a terminal
  (never to a log or a file, never in the hosted profile), since it holds the admin token.`,
  ask: `chatbridge ask "PROMPT" [--file PATH]… [--provider P] [--model P/VARIANT] [--continue REF] [--json] [--no-wait]
  Asks the running service one question and prints the answer; PROMPT - reads stdin.
  --file PATH attaches a file (repeat it for more, at most 10; its type is guessed from its name).
  CHATBRIDGE_URL overrides the service's address, CHATBRIDGE_API_KEY is the key sent.`,
  mcp: `chatbridge mcp [--max-wait 5m]
  A Model Context Protocol server on stdio over the running service (needs CHATBRIDGE_API_KEY).`,
  usage: `chatbridge usage [--since 7d] [--by provider|agent|key] [--json] [--database URL]
  Jobs, outcomes and timings over time.
  --database URL  the jobs of every instance sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL);
                  keys are shown by id there`,
  settings: `chatbridge settings retention [--days N|none] [--database URL]
chatbridge settings pause [--min 10s] [--database URL]
chatbridge settings streaming [on|off] [--database URL]
chatbridge settings attachments [--max-file SIZE] [--max-total SIZE] [--database URL]
chatbridge settings variants [allow|deny PROVIDER/VARIANT…] [--database URL]
chatbridge settings variants cap PROVIDER/VARIANT N|none [--database URL]
chatbridge settings webhooks [deny|undeny ADDRESS|RANGE…] [--database URL]
  retention  how long finished jobs keep their prompt and answer
  pause      the least pause between an agent's jobs, a guard against bans (10s by default;
             up to half again is added at random; 0 for none); agents set ID --pause overrides it
  streaming  whether POST /v1/chat/completions answers stream: true (off: 400); a caller that
             closes its stream before the answer cancels the job
  attachments  the most a job's file may have, and its files together (5MiB, 500KiB, or
             default: 20 MiB and 50 MiB, the most there is); a job over them gets 413
  variants   which variants (chatgpt/thinking, …) the accounts of a hosted service may ask for
             (none until allowed), and hourly caps of the jobs asking for a variant
  webhooks   addresses and ranges (203.0.113.0/24, 2001:db8::/32) no webhook is ever sent to
  --database URL  the settings of the instances sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL)`,
  jobs: `chatbridge jobs delete JOB_ID [--database URL]
chatbridge jobs purge --before DATE [--database URL]
  Deletes one finished job, or every finished job before a date.
  --database URL  the jobs of the instances sharing that PostgreSQL (also CHATBRIDGE_DATABASE_URL)`,
  webhooks: `chatbridge webhooks secret [--rotate] [--database URL]
chatbridge webhooks log JOB_ID [--database URL]
chatbridge webhooks redeliver JOB_ID [--database URL]
  The signing secret (alone on stdout), a job's delivery attempts, a new round of delivery.
  --database URL  the PostgreSQL the instances share (also CHATBRIDGE_DATABASE_URL): after
                  secret --rotate they all sign with the new one; any running instance
                  sends a redelivery`,
  migrate: `chatbridge migrate --database postgres://USER@HOST:PORT/DB [--keep-grants]
  Creates or upgrades the PostgreSQL schema that several instances share, and says from which
  version to which. Safe while instances run: migrations take turns under a database lock.
  Then closes the database to other roles (any role that connects could send ChatBridge's
  notices): only this role and the owner may connect or use the schema.
  --database URL  also CHATBRIDGE_DATABASE_URL
  --keep-grants   leave the database's grants as they are (you manage them yourself)`,
  version: `chatbridge version
  Prints the version.`,
};

export const HELP = `chatbridge ${VERSION}: your logged-in chat accounts as a local API

Usage:
  chatbridge start                       the desktop app (headless serve where Electron is unavailable)
  chatbridge serve [--profile personal|hosted] [--port N] [--host 127.0.0.1 [--allow-remote]] [--simulate] [--simulate-agents P=N,...]
                   [--simulate-layout P=LAYOUT,...] [--simulate-drift KIND,...]
  chatbridge agents list [--json] | agents add PROVIDER [--name N]
  chatbridge agents rename ID NAME | pause ID | enable ID | remove ID | check ID
  chatbridge agents set ID [--pause 20s|default] [--proxy URL|none]   guardrails against bans
  chatbridge keys create --name NAME --scopes completions:read,completions:write[,metrics:read] [--expires-in 30d]
  chatbridge keys list | keys revoke KEY_ID
  chatbridge accounts create --name NAME [--retention-days N|none] | accounts list     (hosted profile)
  chatbridge accounts set ACCT_ID --retention-days N|none | accounts disable ACCT_ID    (hosted profile)
  chatbridge caps set (--global | --provider P | --agent ID) --per-hour N|none
  chatbridge rotation set round_robin|least_used|ordered|random
  chatbridge pause | resume
  chatbridge status [--json]
  chatbridge sites check [--provider P] [--send] [--json]   which cue finds each role on each agent's page
  chatbridge dashboard                   the dashboard link (signed in) of the running server
  chatbridge admin-token [--rotate]      the dashboard link; --rotate makes a new one (open dashboards must reopen)
  chatbridge ask "PROMPT" [--file PATH]… [--provider P] [--model P/VARIANT] [--continue REF] [--json] [--no-wait]   (PROMPT - reads stdin)
  chatbridge mcp [--max-wait 5m]         an MCP server on stdio (needs CHATBRIDGE_API_KEY)
  chatbridge usage [--since 7d] [--by provider|agent|key] [--json]
  chatbridge settings retention [--days N|none] | settings pause [--min 10s] | settings streaming [on|off] | settings attachments [--max-file 5MiB] | settings variants [allow|deny|cap …]
  chatbridge jobs delete JOB_ID | jobs purge --before DATE
  chatbridge webhooks log JOB_ID | webhooks redeliver JOB_ID | webhooks secret [--rotate]
  chatbridge migrate --database URL      creates or upgrades the shared PostgreSQL schema
  chatbridge version

chatbridge COMMAND --help says more about each. ${DATA_DIR} ask and mcp call the
running service: CHATBRIDGE_URL overrides its address, CHATBRIDGE_API_KEY is the key they send.
${runAs()}`;

export function commandHelp(command: string): string {
  return `${COMMAND_HELP[command]}\n\n${DATA_DIR}\n${runAs()}`;
}

/** Where chatbridge is not on the shell's PATH (a clone), how the lines above run (cli-name.ts). */
function runAs(): string {
  return CLI === 'chatbridge' ? '' : `Here chatbridge is not on your PATH: run each command as ${CLI} … (in a clone, npm start -- … runs start).\n`;
}
