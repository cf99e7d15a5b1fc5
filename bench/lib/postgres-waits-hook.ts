/**
 * Preloaded into the scale-out cluster's server processes (`node --import`, bench only): counts, per process,
 * the statements it sends PostgreSQL and the round trips it waits for. A statement started while another one
 * is in flight on the same connection travels in that one's round trip (a transaction's BEGIN with its first
 * statement, the writes a transaction starts together: docs/scale-out.md); any other starts a round trip. A
 * transaction is a BEGIN or a statement sent outside one (an autocommit), counted as sent, so what other
 * processes and PostgreSQL's own workers do meanwhile is not in it (pg_stat_database's count is). On
 * SIGUSR2 the process writes its totals to `$TROUPE_BENCH_PG_WAITS_DIR/<pid>.json` (postgres-waits.ts reads them).
 * The server's own code is unchanged; the count costs a counter and a callback per statement.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { rootRequire } from './root-require.js';

const dir = process.env.TROUPE_BENCH_PG_WAITS_DIR;
if (dir) {
  const { Client } = rootRequire('pg') as typeof pg;
  const totals = { statements: 0, round_trips: 0, transactions: 0 };
  const inFlight = new WeakMap<object, number>();
  const inTransaction = new WeakMap<object, boolean>();
  const send = Reflect.get(Client.prototype, 'query') as (this: object, ...args: unknown[]) => unknown;
  Client.prototype.query = function (this: object, ...args: unknown[]) {
    const pending = inFlight.get(this) ?? 0;
    totals.statements += 1;
    const first = args[0] as { text?: unknown } | string | undefined;
    const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
    if (/^\s*begin\b/i.test(text)) {
      totals.transactions += 1;
      inTransaction.set(this, true);
    } else if (/^\s*(commit|rollback)\b/i.test(text)) inTransaction.set(this, false);
    else if (inTransaction.get(this) !== true) totals.transactions += 1;
    if (pending === 0) totals.round_trips += 1;
    inFlight.set(this, pending + 1);
    const answered = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    // A submittable query (the server's LeanQuery) is answered through its callback, not a promise.
    const config = args[0] as { submit?: unknown; callback?: (...answer: unknown[]) => unknown } | undefined;
    if (typeof config?.submit === 'function' && typeof config.callback === 'function') {
      const callback = config.callback;
      config.callback = (...answer: unknown[]) => {
        answered();
        return callback(...answer);
      };
      return send.apply(this, args);
    }
    const result = send.apply(this, args);
    if (result instanceof Promise) result.then(answered, answered);
    else answered();
    return result;
  } as typeof Client.prototype.query;
  process.on('SIGUSR2', () => {
    writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(totals));
  });
}
