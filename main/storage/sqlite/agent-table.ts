import type { AgentChange, AgentRow, AgentTable } from '../../queue/agent-table.js';
import type { Db } from './db.js';

/** The columns `update` may write: only these names are ever spliced into its SQL. */
const CHANGEABLE = ['name', 'enabled', 'cap_per_hour', 'pause_ms', 'proxy', 'rest_until'] as const;

/** The agents' rows in the data dir's database, whichever engine holds the rest (AgentTable). */
export class SqliteAgentTable implements AgentTable {
  private readonly s;
  private readonly updates = new Map<string, ReturnType<Db['prepare']>>();

  constructor(private readonly db: Db) {
    this.s = {
      all: db.prepare<[], Omit<AgentRow, 'enabled'> & { enabled: number }>(`SELECT * FROM agents ORDER BY position, created_at`),
      insert: db.prepare(
        `INSERT INTO agents (id, provider, name, enabled, position, cap_per_hour, created_at)
         VALUES (@id, @provider, @name, 1, (SELECT COALESCE(MAX(position), 0) + 1 FROM agents), NULL, @created_at)`,
      ),
      remove: db.prepare(`DELETE FROM agents WHERE id = ?`),
    };
  }

  rows(): AgentRow[] {
    return this.s.all.all().map((r) => ({ ...r, enabled: r.enabled === 1 }));
  }

  add({ id, provider, name, createdAt }: Parameters<AgentTable['add']>[0]): void {
    this.s.insert.run({ id, provider, name, created_at: createdAt });
  }

  /** One UPDATE of the fields given (its statement kept per set of fields). */
  update(id: string, change: AgentChange): void {
    const columns = CHANGEABLE.filter((c) => change[c] !== undefined);
    if (columns.length === 0) return;
    const key = columns.join(',');
    let statement = this.updates.get(key);
    if (!statement) {
      statement = this.db.prepare(`UPDATE agents SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`);
      this.updates.set(key, statement);
    }
    const values = Object.fromEntries(columns.map((c) => [c, c === 'enabled' ? (change.enabled ? 1 : 0) : change[c]]));
    statement.run({ ...values, id });
  }

  remove(id: string): void {
    this.s.remove.run(id);
  }
}
