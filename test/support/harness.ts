import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { buildServer, type ConnectionLimits } from '../../main/api/server.js';
import type { Clock } from '../../main/core/clock.js';
import type { Provider, VariantCatalog } from '../../main/core/providers.js';
import type { AttachmentCatalog } from '../../main/core/attachments.js';
import { Service } from '../../main/service/service.js';
import type { AddressPolicy, WebhookTransport } from '../../main/webhooks/https-transport.js';
import { attachScriptedAgents, type ScriptedAgent } from './scripted-agent.js';
import { serviceDriver, type ServiceDriver } from './service-driver.js';
import { ManualClock } from './manual-clock.js';
import type { ProfileName } from '../../main/core/profile-name.js';
import type { Scope } from '../../main/contract/enumerations.js';

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'chatbridge-test-'));
}

/** A data dir for the running test alone, removed once it and its afterEach hooks (which stop services) are done. */
export function testDataDir(): string {
  const dir = tempDataDir();
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestService {
  service: Service;
  /** Submit, wait, look at jobs and deliveries, attach agents, change settings, move the clock: what tests do with the service. */
  driver: ServiceDriver;
  /** Where it listens; '' for a service started with `listen: false`. */
  url: string;
  dataDir: string;
  /** A key with both scopes. */
  key: string;
  agents: ScriptedAgent[];
  createKey(scopes: Scope[], expiresAt?: number | null): Promise<string>;
  /** (H) The account `key` belongs to; null in the personal profile. */
  account: string | null;
  /** (H) Another account with a key of both scopes. */
  createAccount(name: string, retentionDays?: number | null): Promise<{ id: string; key: string }>;
  api<T = any>(method: string, path: string, options?: { body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

/**
 * A real service with scripted agents, in a fresh data dir, on a free loopback port; or, with
 * `listen: false`, on none: `api()` then goes through fastify's `inject()`, for tests of what
 * the API answers rather than of the network it answers on (no socket, no HTTP parser on
 * either side: a fraction of the CPU per request).
 */
export async function startTestService(
  options: {
    /** False: no port; `api()` injects its requests into the app. */
    listen?: boolean;
    agents?: Partial<Record<Provider, number>>;
    profile?: ProfileName;
    clock?: Clock;
    dataDir?: string;
    webhookTransport?: WebhookTransport | ((policy: AddressPolicy) => WebhookTransport);
    allowPrivateWebhooks?: boolean;
    connections?: ConnectionLimits;
    variants?: VariantCatalog;
    /** What each provider's site takes as files (without it: any file within the contract's limits). */
    attachmentRules?: AttachmentCatalog;
    /** How often a quiet event stream gets its keep-alive comment. */
    keepAliveMs?: number;
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDataDir();
  const service = await Service.start({
    dataDir,
    // The roots pass buildServer as it is; tests may shorten its request and connection limits.
    http: (parts) =>
      buildServer({
        ...parts,
        ...(options.connections ? { connections: options.connections } : {}),
        ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
      }),
    port: 0,
    ...(options.listen === false ? { api: false } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.webhookTransport ? { webhookTransport: options.webhookTransport } : {}),
    ...(options.allowPrivateWebhooks ? { allowPrivateWebhooks: true } : {}),
    ...(options.variants ? { variants: options.variants } : {}),
    ...(options.attachmentRules ? { attachmentRules: options.attachmentRules } : {}),
  });
  const agents = attachScriptedAgents(service, options.agents ?? {});
  // In the hosted profile every key belongs to an account: the harness's first one is "test".
  const account = service.profile.accounts ? (await service.accounts.create({ name: 'test', retentionDays: null })).id : null;
  const createKey = async (scopes: Scope[], expiresAt: number | null = null) =>
    (await service.keys.create({ name: 'test', scopes, expiresAt, accountId: account })).secret;
  const key = await createKey(['completions:read', 'completions:write']);
  const createAccount = async (name: string, retentionDays: number | null = null) => {
    const id = (await service.accounts.create({ name, retentionDays })).id;
    const secret = (await service.keys.create({ name, scopes: ['completions:read', 'completions:write'], expiresAt: null, accountId: id })).secret;
    return { id, key: secret };
  };
  return {
    service,
    driver: serviceDriver(service, (counts) => attachScriptedAgents(service, counts), options.clock instanceof ManualClock ? options.clock : undefined),
    url: service.baseUrl,
    dataDir,
    key,
    agents,
    createKey,
    account,
    createAccount,
    async api(method, path, { body, key: k = key, headers = {} } = {}) {
      const request = {
        method,
        headers: {
          ...(k ? { authorization: `Bearer ${k}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      };
      if (options.listen === false) return injected(service, path, request);
      const res = await fetch(service.baseUrl + path, request);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    async stop() {
      await service.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `api()` of a service that does not listen: the request handed to the app as fetch would send it. */
async function injected(service: Service, path: string, request: { method: string; headers: Record<string, string>; body: string | undefined }): Promise<ApiResponse> {
  const res = await service.app.inject({
    method: request.method as 'GET',
    url: path,
    headers: request.headers,
    ...(request.body !== undefined ? { payload: request.body } : {}),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, String(one));
  }
  return { status: res.statusCode, headers, body: res.body ? JSON.parse(res.body) : undefined };
}
