/**
 * What the dashboard may ask of the main process over IPC: only what HTTP cannot do (it
 * reaches the admin API through the app:// protocol; adding an account and logging in go
 * there too, and the app's AgentControl opens their login windows). One schema per channel gives the
 * validation, the TypeScript types, and the preload's list of channels.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { HOST_KINDS } from './host-choice.js';

const AgentId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const Host = Type.Union(HOST_KINDS.map((h) => Type.Literal(h)));
const None = Type.Object({}, { additionalProperties: false });

export const IPC = {
  /** Show an agent's page in a window, to watch it work. */
  'agents:watch': { request: Type.Object({ agentId: AgentId }, { additionalProperties: false }), response: None },
  /** Which browser runs the agent; applies at once (the agent's browser restarts on it). */
  'agents:set-host': { request: Type.Object({ agentId: AgentId, host: Host }, { additionalProperties: false }), response: None },
  /** The desktop-only state the admin API does not know. */
  'desktop:state': {
    request: None,
    response: Type.Object({
      openAtLogin: Type.Boolean(),
      hosts: Type.Record(Type.String(), Host),
    }),
  },
  'desktop:set-open-at-login': { request: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }), response: None },
} satisfies Record<string, { request: TSchema; response: TSchema }>;

export type Channel = keyof typeof IPC;
export const CHANNELS = Object.keys(IPC) as Channel[];
export type Request<C extends Channel> = Static<(typeof IPC)[C]['request']>;
export type Response<C extends Channel> = Static<(typeof IPC)[C]['response']>;
export type Handlers = { [C in Channel]: (request: Request<C>) => Promise<Response<C>> };

/** Errors cross IPC as data: Electron would keep only an Error's message, and mangle it. */
export type Envelope = { ok: true; result: unknown } | { ok: false; error: { code: 'forbidden' | 'invalid' | 'failed'; message: string } };

/**
 * Answers one IPC call: refuses senders other than the dashboard, unknown channels and
 * payloads that fail their schema, before any handler runs.
 */
export function ipcRouter(handlers: Handlers, isDashboard: (senderUrl: string) => boolean) {
  return async (channel: string, senderUrl: string, payload: unknown): Promise<Envelope> => {
    if (!isDashboard(senderUrl)) return { ok: false, error: { code: 'forbidden', message: 'Only the dashboard may call the main process.' } };
    if (!Object.hasOwn(IPC, channel)) return { ok: false, error: { code: 'invalid', message: `Unknown channel ${channel}.` } };
    const c = channel as Channel;
    const schema = IPC[c].request;
    if (!Value.Check(schema, payload)) {
      const first = Value.Errors(schema, payload).First();
      return { ok: false, error: { code: 'invalid', message: `${channel}: ${first?.path || 'payload'} ${first?.message ?? 'is invalid'}` } };
    }
    try {
      const handler = handlers[c] as (request: unknown) => Promise<unknown>;
      return { ok: true, result: await handler(payload) };
    } catch (error) {
      return { ok: false, error: { code: 'failed', message: (error as Error).message } };
    }
  };
}
