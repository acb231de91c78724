import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { AdminToken } from '../keys/admin-token.js';
import type { KeyStore } from '../keys/key-store.js';
import type { RequestLimits } from '../keys/rate-limit.js';
import type { Scope } from '../contract/enumerations.js';

/** What a route declares in its `config`: the scope it needs and which request budget it spends. */
export interface RouteAccess {
  scope?: Scope;
  budget?: 'read' | 'write';
  /** Only the dashboard's admin token may call it: what the /admin/v1 subtree asks of every request (admin/index.ts). */
  admin?: boolean;
  /**
   * The operator's, not a tenant's: the admin token or a key made without an account. In
   * Profile F no key has an account, so this changes nothing there; in hosted, an account's
   * key is refused (what the whole service does is not one account's to see).
   */
  operator?: boolean;
}

declare module 'fastify' {
  // Every route's `config` is its RouteAccess.
  interface FastifyContextConfig extends RouteAccess {}
}

export interface Caller {
  /** The API key's id, or 'admin' for the dashboard's token. */
  keyId: string;
  /** (H) The account the key acts for; null for the admin token and in Profile F. */
  accountId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called, once authenticated: an API key's id, or 'admin'; '' on routes without auth. */
    keyId: string;
    /** Whose jobs and conversations the request may see: the key's account (null in Profile F and for the admin token). */
    accountId: string | null;
  }
}

const BEARER = /^Bearer ([^\s]+)$/i;

/**
 * Authenticates the bearer key, checks the route's scope and spends one request of the
 * key's budget. The admin token (the dashboard's, stored in the data dir) holds every scope
 * and spends a budget of its own, as a key does, in `adminLimits`: the token is this
 * instance's, so its budget is too, even where the keys' budgets are shared with other
 * instances. A key's last use is recorded only for a request it was allowed to make.
 */
export function makeAuthenticator(keys: KeyStore, limits: RequestLimits, adminToken: AdminToken, adminLimits: RequestLimits = limits) {
  const spend = async (access: RouteAccess, bucket: string, whose: string, from = limits) => {
    if (!access.budget) return;
    const wait = await from[access.budget].take(bucket);
    if (wait > 0) {
      throw new ApiError('RATE_LIMITED', `Too many ${access.budget} requests for ${whose}; retry in ${wait} s.`, undefined, {
        'retry-after': String(wait),
      });
    }
  };
  return async function authenticate(request: FastifyRequest, access: RouteAccess): Promise<Caller> {
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match) {
      throw new ApiError('UNAUTHORIZED', 'Send your API key as "Authorization: Bearer <key>".');
    }
    const secret = match[1]!;
    if (adminToken.matches(secret)) {
      // Key ids are key_…, so this bucket is the token's own.
      await spend(access, 'admin', 'the admin token', adminLimits);
      return { keyId: 'admin', accountId: null };
    }
    let auth = keys.authenticate(secret);
    if (!auth.ok && auth.reason === 'unknown') auth = await keys.authenticateAgain(secret);
    if (!auth.ok) {
      const why = {
        malformed: 'is not a ChatBridge key',
        unknown: 'is not known',
        revoked: 'was revoked',
        expired: 'has expired',
        account_disabled: "belongs to an account that was disabled",
      };
      throw new ApiError('UNAUTHORIZED', `This API key ${why[auth.reason]}.`);
    }
    if (access.admin) throw new ApiError('FORBIDDEN', "This route is the dashboard's: it takes the admin token, not an API key.");
    if (access.operator && auth.key.account_id !== null) {
      throw new ApiError('FORBIDDEN', "This route is the operator's: it takes the admin token or a key made without an account, not an account's key.");
    }
    if (access.scope && !auth.key.scopes.includes(access.scope)) {
      throw new ApiError('FORBIDDEN', `This API key lacks the ${access.scope} scope.`);
    }
    await spend(access, auth.key.id, 'this key');
    keys.recordUse(auth.key);
    return { keyId: auth.key.id, accountId: auth.key.account_id };
  };
}

/**
 * DNS-rebinding defence: a page on some site whose name was made to resolve to 127.0.0.1
 * still sends its own name in Host. Only IP literals and "localhost" are accepted.
 */
export function isAllowedHost(host: string | undefined): boolean {
  const m = host ? /^(?:\[([^\]]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(host) : null;
  if (!m) return false;
  if (m[1] !== undefined) return isIP(m[1]) === 6;
  return m[2] === 'localhost' || isIP(m[2]!) === 4;
}
