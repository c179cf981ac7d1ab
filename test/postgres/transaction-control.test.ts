/**
 * The classifier behind `context.transaction`'s refusal of transaction control: a table of
 * statements, each refused (with the name the error gives) or allowed, as PostgreSQL's lexer reads
 * them (comments, literals, dollar quotes, several statements). Then the query forms node-postgres
 * accepts, and how each form is failed (rejection, callback, submittable).
 */
import { describe, expect, it } from 'vitest';
import { failQuery, queryTextOf, refusedStatement, transactionControlIn } from '../../src/postgres/transaction-control.js';

const REFUSED: Array<[string, string]> = [
  ['BEGIN', 'BEGIN'],
  ['begin work', 'BEGIN'],
  ['  Begin Transaction Isolation Level Serializable  ', 'BEGIN'],
  ['START TRANSACTION', 'START TRANSACTION'],
  ['start transaction read only', 'START TRANSACTION'],
  ['COMMIT', 'COMMIT'],
  ['commit;', 'COMMIT'],
  ['COMMIT AND CHAIN', 'COMMIT'],
  ['END', 'END'],
  ['end transaction', 'END'],
  ['ROLLBACK', 'ROLLBACK'],
  ['rollback work', 'ROLLBACK'],
  ['ROLLBACK TRANSACTION AND NO CHAIN', 'ROLLBACK'],
  ['ABORT', 'ABORT'],
  ["PREPARE TRANSACTION 'gid-1'", 'PREPARE TRANSACTION'],
  ["COMMIT PREPARED 'gid-1'", 'COMMIT PREPARED'],
  ["ROLLBACK PREPARED 'gid-1'", 'ROLLBACK PREPARED'],
  ['SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', 'SET TRANSACTION'],
  ['set transaction read only', 'SET TRANSACTION'],
  ['SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED', 'SET SESSION CHARACTERISTICS'],
  ["SET transaction_isolation = 'serializable'", 'SET transaction_isolation'],
  ['SET LOCAL transaction_read_only TO on', 'SET transaction_read_only'],
  ['SET SESSION "Transaction_Deferrable" = on', 'SET transaction_deferrable'],
  ["SET default_transaction_isolation TO 'repeatable read'", 'SET default_transaction_isolation'],
  ['RESET default_transaction_read_only', 'RESET default_transaction_read_only'],
  ["SELECT set_config('transaction_isolation', 'serializable', true)", "set_config('transaction_isolation')"],
  ["select pg_catalog.SET_CONFIG('Default_Transaction_Read_Only', 'on', false)", "set_config('default_transaction_read_only')"],
  ["SELECT set_config(E'transaction_read_only', 'on', true)", "set_config('transaction_read_only')"],
  // Several statements: the one after a `;` counts, whatever precedes it.
  ['INSERT INTO t VALUES (1); COMMIT; INSERT INTO t VALUES (2)', 'COMMIT'],
  ["SELECT 'a;b'; rollback", 'ROLLBACK'],
  ['SELECT 1;;;\n\tEND', 'END'],
  // Comments before it, in both forms, nested, and mixed case.
  ['-- finish the work\nCOMMIT', 'COMMIT'],
  ['/* finish */ CoMmIt', 'COMMIT'],
  ['/* outer /* inner */ still a comment */ commit', 'COMMIT'],
  ['SELECT 1 -- ; not a statement\n; COMMIT', 'COMMIT'],
  // A literal that ends where PostgreSQL ends it: after it, a real statement.
  ["INSERT INTO t VALUES ('it''s'); COMMIT", 'COMMIT'],
  ["INSERT INTO t VALUES (E'\\''); COMMIT", 'COMMIT'],
  ['SELECT $$body$$; COMMIT', 'COMMIT'],
  ['SELECT $x$ $$ ; $x$; COMMIT', 'COMMIT'],
  ['SELECT "a;b" FROM t; ABORT', 'ABORT'],
  [`SELECT $${'t'.repeat(80)}$ ; $${'t'.repeat(80)}$; COMMIT`, 'COMMIT'],
  ['SELECT 1.5e3; COMMIT', 'COMMIT'],
  // With standard_conforming_strings off, `\'` does not end the literal: the COMMIT is a statement.
  ["SELECT '\\' '; COMMIT; SELECT ' '", 'COMMIT'],
  // A function body in BEGIN ATOMIC ends at its END: what follows is a statement again.
  ['CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; END; COMMIT', 'COMMIT'],
  // Outside a CREATE, `begin atomic` is a column and its alias: the `;` still ends the statement.
  ['SELECT begin atomic FROM t; COMMIT', 'COMMIT'],
  // With standard_conforming_strings on (the default), a backslash does not escape: the literal ends.
  ["SELECT '\\'; COMMIT; --'", 'COMMIT'],
  ['SELECT case_id, end_at FROM t; COMMIT', 'COMMIT'],
  // An empty comment ends at once; `\\` in an E'' literal is one backslash, the quote after it ends it.
  ['/**/ COMMIT', 'COMMIT'],
  [String.raw`SELECT E'\\'; COMMIT`, 'COMMIT'],
  // A literal runs past its `''` (named as written); a dollar-quoted body is a literal too (setting names ignore case).
  ["SELECT set_config('transaction_''x', 'on', true)", "set_config('transaction_''x')"],
  ["SELECT set_config($$transaction_isolation$$, 'serializable', true)", "set_config('transaction_isolation')"],
  ["SELECT set_config($t$Transaction_Read_Only$t$, 'on', true)", "set_config('transaction_read_only')"],
  // Only the keywords BEGIN ATOMIC open a body, and only END (a keyword, not a literal) closes it.
  ['CREATE TABLE t (begin int, atomic int); COMMIT', 'COMMIT'],
  ['CREATE VIEW v AS SELECT "begin" atomic FROM t; COMMIT', 'COMMIT'],
  ["CREATE FUNCTION f() RETURNS text LANGUAGE sql BEGIN ATOMIC SELECT 'end'; SELECT 'case'; END; COMMIT", 'COMMIT'],
  ['CREATE FUNCTION f(x int DEFAULT CASE WHEN true THEN 1 END) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT x; END; COMMIT', 'COMMIT'],
  // `e` alone is a column; only `E'` / `e'` opens an escape literal (N'' has no escapes).
  ['SELECT e, x FROM t; COMMIT', 'COMMIT'],
  [String.raw`SELECT N'\'; COMMIT; --'`, 'COMMIT'],
  ['RESET TRANSACTION ISOLATION LEVEL', 'RESET TRANSACTION'],
];

const ALLOWED: string[] = [
  'SAVEPOINT s1',
  'savepoint "my point"',
  'RELEASE SAVEPOINT s1',
  'release s1',
  'ROLLBACK TO SAVEPOINT s1',
  'rollback to s1',
  'ROLLBACK WORK TO SAVEPOINT s1',
  'ROLLBACK TRANSACTION TO s1',
  'INSERT INTO credits (event_id) VALUES ($1)',
  "INSERT INTO notes (body) VALUES ('commit')",
  "INSERT INTO notes (body) VALUES (';COMMIT')",
  "INSERT INTO notes (body) VALUES ('x''; COMMIT; --')",
  "INSERT INTO notes (body) VALUES (E'\\'; COMMIT; --')",
  "SELECT 'a' -- COMMIT\n",
  'SELECT 1 /* ; COMMIT */',
  'SELECT 1 /* nested /* ; COMMIT */ ; ROLLBACK */',
  'SELECT $$; COMMIT$$',
  "SELECT $tag$ it's; COMMIT $$ $tag$",
  'SELECT "commit" FROM "end"',
  'SELECT a$b FROM t',
  `SELECT $${'t'.repeat(80)}$ ; COMMIT $${'t'.repeat(80)}$`,
  'PREPARE p AS SELECT $1$$; COMMIT $$',
  'SELECT $1, $2 FROM t',
  'UPDATE accounts SET balance = balance - 1, transaction_count = transaction_count + 1',
  "SELECT set_config('search_path', 'payments', true)",
  'SET LOCAL lock_timeout = 1000',
  'SET search_path TO payments',
  'SET SESSION AUTHORIZATION DEFAULT',
  'RESET search_path',
  'PREPARE ins (text) AS INSERT INTO t VALUES ($1)',
  'SELECT begin, "end" FROM t',
  'SELECT CASE WHEN x THEN 1 END FROM t',
  // A COMMIT inside a DO block or a procedure cannot commit in a transaction block (the server refuses it).
  'DO $$ BEGIN INSERT INTO t VALUES (1); COMMIT; END $$',
  'DO LANGUAGE plpgsql $body$ BEGIN COMMIT; END $body$',
  'CALL settle_batch()',
  'CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END',
  "CREATE FUNCTION g() RETURNS void AS 'COMMIT' LANGUAGE sql",
  '',
  '   ;  ; ',
  '-- only a comment',
  "SELECT 'unterminated; COMMIT",
  'SELECT $$ unterminated; COMMIT',
  '"commit"',
  'SELECT set_config(',
  "SELECT set_config ,'transaction_isolation'",
  'SELECT set_config(transaction_isolation)',
  "SELECT format('transaction_isolation')",
  'RESET SESSION AUTHORIZATION',
  'SET my_transaction_limit = 5',
  "SELECT set_config('app.transaction_id', '1', true)",
  "SET search_path = 'transaction_x'",
  'CREATE FUNCTION h() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; COMMIT; END',
  '/* unterminated; COMMIT',
  // A quoted identifier never escapes with a backslash, whatever standard_conforming_strings says.
  String.raw`SELECT "a\" FROM t WHERE x = '"; COMMIT; --'`,
  // A quoted identifier is a column, not a setting's name.
  `SELECT set_config("transaction_isolation", 'serializable', true)`,
  String.raw`INSERT INTO notes (body) VALUES (e'\'; COMMIT; --')`,
  // Incomplete: the server's own syntax error, never a throw here.
  'SET',
  'RESET',
  'SET SESSION',
  // A prepared statement of that name is not the transaction's: PREPARE TRANSACTION is.
  'PREPARE transaction_total (int) AS SELECT $1',
  'PREPARE characteristics AS SELECT 1',
];

// Plain test names (the row's number): a statement's quotes, dollars and backslashes in a test's
// name would have to survive every tool that selects tests by name (Stryker's runner does).
describe('transactionControlIn', () => {
  it.each(REFUSED.map(([text, name], row) => ({ row, text, name })))('refuses row $row', ({ text, name }) => {
    expect(transactionControlIn(text), text).toBe(name);
  });

  it.each(ALLOWED.map((text, row) => ({ row, text })))('allows row $row', ({ text }) => {
    expect(transactionControlIn(text), text).toBeUndefined();
  });
});

describe('the query forms node-postgres accepts', () => {
  const submittable = (text: unknown) => ({ text, submit: () => undefined });

  it('reads the text of a string, a config object, a submittable, and a stream’s cursor', () => {
    expect(queryTextOf('COMMIT')).toBe('COMMIT');
    expect(queryTextOf({ text: 'COMMIT', values: [] })).toBe('COMMIT');
    expect(queryTextOf(submittable('COMMIT'))).toBe('COMMIT');
    expect(queryTextOf({ cursor: { text: 'COMMIT' }, submit: () => undefined })).toBe('COMMIT');
    expect(queryTextOf({ name: 'prepared-earlier' })).toBeUndefined();
    expect(queryTextOf({ text: 42 })).toBeUndefined();
    expect(queryTextOf(null)).toBeUndefined();
    expect(queryTextOf(7)).toBeUndefined();
  });

  it('refuses transaction control in each form and a query it cannot read; leaves a missing query to the driver', () => {
    expect(refusedStatement('commit')).toBe('COMMIT');
    expect(refusedStatement({ text: '/* x */ ROLLBACK' })).toBe('ROLLBACK');
    expect(refusedStatement(submittable('BEGIN'))).toBe('BEGIN');
    expect(refusedStatement({ name: 'prepared-earlier' })).toMatch(/cannot be read/);
    expect(refusedStatement({ text: 'SAVEPOINT a' })).toBeUndefined();
    expect(refusedStatement(undefined)).toBeUndefined();
    expect(refusedStatement(null)).toBeUndefined();
  });

  it('fails a promise call with a rejection, a callback call through its callback, a submittable through handleError', async () => {
    const error = new Error('refused');
    await expect(failQuery(['COMMIT'], error)).rejects.toBe(error);
    await expect(failQuery(['COMMIT', []], error)).rejects.toBe(error);
    await expect(failQuery([], error)).rejects.toBe(error);

    const viaCallback = (args: unknown[]) =>
      new Promise<unknown[]>((resolve) => {
        const returned = failQuery(
          args.map((a) => (a === 'cb' ? (err: Error) => resolve([err, returned]) : a)),
          error,
        );
      });
    expect(await viaCallback(['COMMIT', 'cb'])).toEqual([error, undefined]);
    expect(await viaCallback(['COMMIT', [], 'cb'])).toEqual([error, undefined]);

    const config = { text: 'COMMIT', callback: undefined as unknown };
    const seen = new Promise((resolve) => (config.callback = resolve));
    expect(failQuery([config], error)).toBeUndefined();
    expect(await seen).toBe(error);

    const handled: unknown[] = [];
    const query = { text: 'COMMIT', submit: () => undefined, handleError: (err: Error) => handled.push(err) };
    expect(failQuery([query], error)).toBe(query);
    expect(handled).toEqual([]); // reported later, as the driver does, never during the call
    await Promise.resolve();
    expect(handled).toEqual([error]);

    const withCallback = new Promise((resolve) => failQuery([{ ...query, handleError: undefined }, resolve], error));
    expect(await withCallback).toBe(error);
    const silent = { text: 'COMMIT', submit: () => undefined };
    expect(failQuery([silent], error)).toBe(silent);
  });
});
