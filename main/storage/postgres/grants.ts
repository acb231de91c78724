import type pg from 'pg';

/**
 * Shuts the database to roles other than ours. PostgreSQL lets every role connect to every
 * database by default, and has no permissions on channels: any role that connects can send
 * on ChatBridge's NOTIFY channels and LISTEN to its job and device ids. So the right to
 * connect (and to make temporary tables) is taken from PUBLIC, and so are the rights on the
 * schema ChatBridge's tables are in; this role keeps them by name. Only the database's owner
 * (or a superuser) can take them: otherwise PostgreSQL takes nothing, which is checked after.
 * Returns the one line that says what was done, or what to do.
 */
export async function closeToOtherRoles(pool: pg.Pool): Promise<{ closed: boolean; said: string }> {
  const c = await pool.connect();
  try {
    const { rows } = await c.query<{ db: string; schema: string; role: string }>(`SELECT current_database() AS db, current_schema() AS schema, current_user AS role`);
    const { db, schema, role } = rows[0]!;
    const [database, space] = [c.escapeIdentifier(db), c.escapeIdentifier(schema)];
    await c.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${database} TO CURRENT_USER`).catch(() => {});
    await c.query(`GRANT USAGE, CREATE ON SCHEMA ${space} TO CURRENT_USER`).catch(() => {});
    await c.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${database} FROM PUBLIC`);
    await c.query(`REVOKE ALL ON SCHEMA ${space} FROM PUBLIC`);
    const open = await c.query<{ connect: boolean; usage: boolean }>(
      `SELECT has_database_privilege('public', current_database(), 'CONNECT') AS connect, has_schema_privilege('public', current_schema(), 'USAGE') AS usage`,
    );
    if (open.rows[0]!.connect || open.rows[0]!.usage) {
      return {
        closed: false,
        said: `Could not close the database "${db}" to other roles (only its owner can): run migrate as its owner, or pass --keep-grants if you manage its grants yourself.`,
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
