/** objectRows gives the rows better-sqlite3 would give, and refuses a column it could not name safely. */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { objectRows } from '../../main/storage/sqlite/object-rows.js';

let db: Database.Database;

beforeEach(() => {
  db = new Database(':memory:');
  db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, note TEXT, data BLOB)`);
  const insert = db.prepare(`INSERT INTO t VALUES (?, ?, ?, ?, ?)`);
  insert.run('a', 1, 0.5, 'first', Buffer.from([1, 2]));
  insert.run('b', null, null, null, null);
  insert.run('c', 2 ** 40, -3, 'it\'s "quoted"', Buffer.alloc(0));
});

afterEach(() => db.close());

describe('objectRows', () => {
  it('gives each row as the statement would, same keys in the same order', () => {
    const sql = `SELECT * FROM t WHERE id = ?`;
    const rows = objectRows(db.prepare(sql));
    for (const id of ['a', 'b', 'c']) {
      const expected = db.prepare(sql).get(id) as Record<string, unknown>;
      const row = rows.get(id) as Record<string, unknown>;
      expect(row).toEqual(expected);
      expect(Object.keys(row)).toEqual(Object.keys(expected));
    }
    expect(rows.get('none')).toBeUndefined();
  });

  it('gives every row of all(), in order', () => {
    const sql = `SELECT id, n, note FROM t WHERE id > ? ORDER BY id DESC`;
    expect(objectRows(db.prepare(sql)).all('a')).toEqual(db.prepare(sql).all('a'));
    expect(objectRows(db.prepare(sql)).all('z')).toEqual([]);
  });

  it('refuses a column whose name is not a plain identifier', () => {
    expect(() => objectRows(db.prepare(`SELECT id AS "a b" FROM t`))).toThrow(/"a b" is not a plain name/);
    expect(() => objectRows(db.prepare(`SELECT n + 1 FROM t`))).toThrow(/not a plain name/);
  });
});
