import type pg from 'pg';
import type { GrantsPolicy } from '../ports.js';
import { StorageRefused } from '../refused.js';

/**
 * Who besides ChatBridge's role can reach its database. PostgreSQL lets every role connect to
 * every database by default, and has no permissions on channels: any role that connects can
 * LISTEN to the job and device ids on ChatBridge's channels and NOTIFY on them. Superusers and
 * the database's owner are not counted: nothing in the database can be closed to them.
 */
export interface Exposure {
  /** Every role, present and future, may connect: CONNECT is granted to PUBLIC. */
  everyone: boolean;
  /** Other login roles that may connect (by a grant to them or to a role they belong to). */
  roles: string[];
  /** Other roles with a session open on the database now: a revoked CONNECT does not end it. */
  sessions: string[];
}

const OTHERS = `NOT r.rolsuper AND r.rolname <> current_user
  AND r.oid <> (SELECT datdba FROM pg_database WHERE datname = current_database())`;

/** Who else can reach the database `c` is connected to. */
export async function exposureOf(c: pg.ClientBase | pg.Pool): Promise<Exposure> {
  const { rows } = await c.query<Exposure>(
    `SELECT has_database_privilege('public', current_database(), 'CONNECT') AS everyone,
       ARRAY(SELECT r.rolname::text FROM pg_roles r
             WHERE r.rolcanlogin AND ${OTHERS} AND has_database_privilege(r.oid, current_database(), 'CONNECT')
             ORDER BY 1) AS roles,
       ARRAY(SELECT DISTINCT r.rolname::text FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
             WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND ${OTHERS}
             ORDER BY 1) AS sessions`,
  );
  return rows[0]!;
}

/** The exposure in words, or null when there is none. */
export function describeExposure({ everyone, roles, sessions }: Exposure): string | null {
  const parts = [
    ...(everyone ? ['every role may connect (CONNECT is granted to PUBLIC)'] : roles.length > 0 ? [`${named(roles)} may connect`] : []),
    ...(sessions.length > 0 ? [`${named(sessions)} ${sessions.length === 1 ? 'has a session' : 'have sessions'} open on it`] : []),
  ];
  return parts.length === 0 ? null : parts.join('; ');
}

const named = (roles: string[]) => `role${roles.length === 1 ? '' : 's'} ${roles.join(', ')}`;

/**
 * Shuts the database to roles other than ours: the right to connect (and to make temporary
 * tables) is taken from PUBLIC and from every role it was granted to, as are the rights on
 * the schema ChatBridge's tables are in (this role keeps them by name), and the sessions
 * other roles hold open are ended. Only the database's owner (or a superuser) can take the
 * grants, and only a superuser or a member of pg_signal_backend can end another role's
 * session: what could not be done is found by checking again after.
 * Returns the one line that says what was done, or what is left to do.
 */
export async function closeToOtherRoles(pool: pg.Pool): Promise<{ closed: boolean; said: string }> {
  const c = await pool.connect();
  try {
    const { rows } = await c.query<{ db: string; schema: string; role: string; granted: string[] }>(
      `SELECT current_database() AS db, current_schema() AS schema, current_user AS role,
         ARRAY(SELECT DISTINCT g.grantee::regrole::text
               FROM pg_database d, aclexplode(d.datacl) g
               WHERE d.datname = current_database() AND g.grantee <> 0 AND g.grantee <> d.datdba
                 AND g.grantee::regrole::text <> quote_ident(current_user)) AS granted`,
    );
    const { db, schema, role, granted } = rows[0]!;
    const [database, space] = [c.escapeIdentifier(db), c.escapeIdentifier(schema)];
    await c.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${database} TO CURRENT_USER`).catch(() => {});
    await c.query(`GRANT USAGE, CREATE ON SCHEMA ${space} TO CURRENT_USER`).catch(() => {});
    await c.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${database} FROM PUBLIC`);
    await c.query(`REVOKE ALL ON SCHEMA ${space} FROM PUBLIC`);
    // Role names from regrole::text come quoted where they need it.
    for (const grantee of granted) await c.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${database} FROM ${grantee}`).catch(() => {});
    // Waits (up to 5 s) for each session to end, so that the check below does not find it still there.
    await c
      .query(
        `SELECT pg_terminate_backend(a.pid, 5000) FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
         WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND ${OTHERS}`,
      )
      .catch(() => {});
    const open = await c.query<{ usage: boolean }>(`SELECT has_schema_privilege('public', current_schema(), 'USAGE') AS usage`);
    const left = describeExposure(await exposureOf(c));
    if (left || open.rows[0]!.usage) {
      return {
        closed: false,
        said:
          `Could not close the database "${db}" to other roles (${left ?? `every role may use schema "${schema}"`}): ` +
          'run migrate as its owner (or as a superuser, to end other roles\' sessions), or pass --keep-grants if you manage its grants yourself.',
      };
    }
    return {
      closed: true,
      said: `Database "${db}" closed to other roles: only ${role} and its owner may connect or use schema "${schema}" (--keep-grants leaves grants alone).`,
    };
  } finally {
    c.release();
  }
}

/**
 * What a service does at start about the roles that can reach its database (see
 * GrantsPolicy). Resolves with a line to warn with, if any; rejects with StorageRefused when
 * the database stays open and the policy does not allow it.
 */
export async function guardGrants(pool: pg.Pool, policy: GrantsPolicy): Promise<string | null> {
  const exposure = describeExposure(await exposureOf(pool));
  if (!exposure) return null;
  const { rows } = await pool.query<{ db: string }>(`SELECT current_database() AS db`);
  const what = `The database "${rows[0]!.db}" is open to other roles: ${exposure}. Such a role can hear job ids on LISTEN and send ChatBridge's notices`;
  if (policy === 'keep') return `${what} (--keep-grants: left as it is).`;
  if (policy === 'fix') {
    const result = await closeToOtherRoles(pool);
    if (!result.closed) throw new StorageRefused(result.said);
    return result.said;
  }
  throw new StorageRefused(
    `${what}. Close it with serve --fix-grants (or chatbridge migrate, as its owner), or pass --keep-grants if you manage its grants yourself.`,
  );
}
