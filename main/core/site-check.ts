/**
 * `chatbridge sites check` and the dashboard's "Check site": what an agent's page shows of
 * each role of its provider's selector pack. The agent runtime makes the report; the API,
 * the CLI and the dashboard show it.
 */

/**
 * How a role fared: `found` by a cue; `missing` where the flow needs it and no cue finds it;
 * `not_shown` for what a site shows only when it has something to say (a limit notice, a
 * login wall, a dialog) and did not; `needs_send` for what only an answer shows (the answer,
 * its finished signal, its copy control, the stop control), when no probe was sent.
 */
export type RoleStatus = 'found' | 'missing' | 'not_shown' | 'needs_send';

export interface RoleCheck {
  role: string;
  status: RoleStatus;
  /** The cue that found it: its position in the role's list, its kind and selector. */
  cue: { index: number; kind: string; css: string } | null;
}

export interface SiteCheck {
  agent_id: string;
  provider: string;
  /** The provider's name as the pack writes it. */
  site: string;
  /** When the check ran (epoch ms). */
  at: number;
  /** The selector pack in force: version, the day it was checked, and a user's override merged in or refused. */
  pack: { version: number; checked: string; override: string | null; override_error: string | null };
  /** Origin and path of the page checked, never the query. */
  page_url: string | null;
  /** Whether the probe prompt was sent (`--send`). */
  sent: boolean;
  /** What kept the check from going through (a login wall, a challenge, a probe that failed), if anything. */
  problem: string | null;
  roles: RoleCheck[];
  /**
   * The ids of the pack's variants (models and modes) the account's picker and toggles offer
   * now; null where the page could not be looked at (a login wall, a challenge) or its model
   * picker did not open.
   */
  variants: string[] | null;
  /** No role missing and no problem. */
  ok: boolean;
}

/** The prompt `--send` runs through the normal flow. */
export const PROBE_PROMPT = 'Reply with the single word: pong';

/** The agent runs a job (or another check): a check would disturb it. */
export class AgentBusy extends Error {}
