/**
 * The tables of a test, made as docs/postgres.md says a migration makes them: created by the
 * owner (the superuser here) with the shipped SQL, then granted to the least-privilege role the
 * stores connect as.
 */
import type pg from 'pg';
import { eventSchema, journalSchema, payoutSchema } from '../../../src/postgres/index.js';
import { APP_ROLE } from './postgres-server.js';

/** The grant docs/postgres.md gives the application's role on each table. */
const grantOf = (table: string): string => `GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${APP_ROLE}`;

/** Creates the journal table `name` and grants it. */
export async function makeJournalTable(admin: pg.ClientBase | pg.Pool, name: string): Promise<void> {
  for (const sql of journalSchema(name)) await admin.query(sql);
  await admin.query(grantOf(name));
}

/** Creates the event table `name`, and the merchant's own table of effects `<name>_credits`, and grants both. */
export async function makeEventTables(admin: pg.ClientBase | pg.Pool, name: string): Promise<void> {
  for (const sql of eventSchema(name)) await admin.query(sql);
  await admin.query(grantOf(name));
  // The merchant's effect: one row per credited event, and nothing stops a second (no unique key),
  // so a double processing shows as a second row.
  await admin.query(`CREATE TABLE ${name}_credits (id bigserial PRIMARY KEY, event_id text NOT NULL, receiver text NOT NULL)`);
  await admin.query(grantOf(`${name}_credits`));
  await admin.query(`GRANT USAGE ON SEQUENCE ${name}_credits_id_seq TO ${APP_ROLE}`);
}

/** Creates the payout table `name` and grants it as docs/postgres.md does: `SELECT, INSERT, UPDATE`, no `DELETE`. */
export async function makePayoutTable(admin: pg.ClientBase | pg.Pool, name: string): Promise<void> {
  for (const sql of payoutSchema(name)) await admin.query(sql);
  await admin.query(`GRANT SELECT, INSERT, UPDATE ON ${name} TO ${APP_ROLE}`);
}
