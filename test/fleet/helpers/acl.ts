/**
 * The least-privilege Redis user of docs/fleet.md, read from the document itself so that the
 * tests run what the page tells merchants to run (and the two cannot drift).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'fleet.md');

/** The user name the documented line creates. */
export const ACL_USER = 'merchant-stablecoin';

/**
 * The rules of the documented `ACL SETUSER merchant-stablecoin ...` line (the first one: the
 * Cluster's addition is not included), with its password placeholder replaced by `password`, as
 * arguments of `ACL SETUSER merchant-stablecoin`.
 */
export function documentedAcl(password: string): string[] {
  const line = /^ACL SETUSER merchant-stablecoin .*$/m.exec(readFileSync(DOC, 'utf8'))?.[0];
  if (line === undefined) throw new Error('docs/fleet.md has no "ACL SETUSER merchant-stablecoin ..." line');
  if (!line.includes('>CHANGE-ME')) throw new Error('the ACL line of docs/fleet.md has no >CHANGE-ME password placeholder');
  return line.replace('>CHANGE-ME', `>${password}`).split(/\s+/).slice(3);
}
