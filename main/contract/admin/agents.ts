/** The messages of /admin/v1/agents: an agent as the dashboard shows it, its changes, its site check. */
import { Type, type Static } from '@sinclair/typebox';
import { PROVIDERS } from '../../core/providers.js';
import { Nullable } from '../schemas.js';
import { Cap, CueMatch, PauseMs, Timestamp } from './shared.js';

export const AgentView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  state: Type.String({ description: 'needs_login, idle, busy, resting (after a usage limit, until cooldown_until), paused or error' }),
  detail: Nullable(Type.String({ description: 'Why the agent is not ready, in words for a person' })),
  enabled: Type.Boolean(),
  position: Type.Integer(),
  cap_per_hour: Cap,
  used_this_hour: Type.Integer(),
  next_slot_at: Nullable(Timestamp),
  cooldown_until: Nullable(Timestamp),
  next_check_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the agent, set aside (error) or resting, looks at its page again on its own; null when it does not (a login waits for the person)',
    }),
  ),
  pause_ms: Nullable(Type.Integer({ description: 'Its own least pause between jobs, in ms; null follows the global setting (settings.pause_ms)' })),
  pause_until: Nullable(Type.String({ format: 'date-time', description: 'It pauses between jobs until then (a guard against bans): idle, but takes no job yet' })),
  proxy: Nullable(Type.String({ description: "Its browser's proxy, the password masked; null for a direct connection" })),
  pairing: Nullable(
    Type.Unsafe<'login' | 'checking'>({
      type: 'string',
      enum: ['login', 'checking'],
      description: "A login is under way in the agent's page: waiting for the person, or checking the result",
    }),
  ),
  created_at: Timestamp,
});
export type AgentView = Static<typeof AgentView>;

export const AgentPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    enabled: Type.Optional(Type.Boolean()),
    cap_per_hour: Type.Optional(Cap),
    pause_ms: Type.Optional(Nullable({ ...PauseMs, description: 'Its own least pause between jobs, in ms; null follows the global setting' })),
    proxy: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          description: "Its browser's egress: http://, https:// or socks5:// with host and port (user:password@ allowed); null for none. Its browser restarts.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type AgentPatch = Static<typeof AgentPatch>;

export const AgentCreate = Type.Object(
  {
    provider: Type.Unsafe<(typeof PROVIDERS)[number]>({ type: 'string', enum: [...PROVIDERS] }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
  },
  { additionalProperties: false },
);
export type AgentCreate = Static<typeof AgentCreate>;

export const SiteCheckRequest = Type.Object(
  { send: Type.Optional(Type.Boolean({ description: 'Also run a short probe prompt, to check the roles of an answer (default false)' })) },
  { additionalProperties: false },
);
export type SiteCheckRequest = Static<typeof SiteCheckRequest>;

/** main/core/site-check.ts: what an agent's page shows of each role of its pack. */
export const SiteCheckView = Type.Object({
  agent_id: Type.String(),
  provider: Type.String(),
  site: Type.String({ description: "The provider's name" }),
  at: Timestamp,
  pack: Type.Object({
    version: Type.Integer(),
    checked: Type.String({ description: 'The day its cues were last held against the live site' }),
    override: Nullable(Type.String({ description: 'The override file merged in' })),
    override_error: Nullable(Type.String({ description: 'Why an override file was refused (the pack above stays in force)' })),
  }),
  page_url: Nullable(Type.String({ description: 'Origin and path only' })),
  sent: Type.Boolean({ description: 'Whether the probe prompt was sent' }),
  problem: Nullable(Type.String({ description: 'What kept the check from going through: a login wall, a challenge, a failed probe' })),
  roles: Type.Array(
    Type.Object({
      role: Type.String(),
      status: Type.Unsafe<'found' | 'missing' | 'not_shown' | 'needs_send'>({
        type: 'string',
        enum: ['found', 'missing', 'not_shown', 'needs_send'],
        description: 'missing: needed and no cue finds it; not_shown: a notice the page shows only when it has one; needs_send: shown only by an answer',
      }),
      cue: CueMatch,
    }),
  ),
  variants: Nullable(Type.Array(Type.String(), { description: "The ids of the pack's variants the account's picker and toggles offer now; null where the page could not be looked at or its model picker did not open" })),
  ok: Type.Boolean({ description: 'No role missing and no problem' }),
});
export type SiteCheckView = Static<typeof SiteCheckView>;
