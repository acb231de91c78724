/**
 * The lanes with a pending delivery, by a loose index scan: one seek per account, then one
 * per lane, however long the backlog behind each. The same SQL on SQLite and PostgreSQL.
 */
export const LANES = `
  WITH RECURSIVE
    a (account) AS (
      SELECT MIN(account_id) FROM webhook_deliveries WHERE state = 'pending'
      UNION ALL
      SELECT (SELECT MIN(account_id) FROM webhook_deliveries WHERE state = 'pending' AND account_id > a.account)
      FROM a WHERE a.account IS NOT NULL),
    l (account, origin) AS (
      SELECT account, (SELECT MIN(origin) FROM webhook_deliveries WHERE state = 'pending' AND account_id = a.account)
      FROM a WHERE a.account IS NOT NULL
      UNION ALL
      SELECT account, (SELECT MIN(origin) FROM webhook_deliveries WHERE state = 'pending' AND account_id = l.account AND origin > l.origin)
      FROM l WHERE l.origin IS NOT NULL)
  SELECT account, origin FROM l WHERE origin IS NOT NULL ORDER BY account, origin`;
