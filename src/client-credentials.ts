/**
 * The client's four required settings: the base URL and the three credentials, each passed or
 * read from its `MERCHANT_API_*` variable. The credentials come from one source: once any of
 * them is passed, none is read from the environment, since completing a partial set from it
 * pairs keys that may not belong together (another account's signing key signing real calls).
 */
import { InvalidArgumentError } from './core/errors/errors.js';
import { hasControlChars } from './core/text.js';

/** Reads one environment variable. */
export type Env = (name: string) => string | undefined;

/** The required settings, as given to the constructor (any may be absent). */
export interface GivenRequired {
  readonly baseUrl?: unknown;
  readonly clientId?: unknown;
  readonly apiKey?: unknown;
  readonly signingKey?: unknown;
}

/** The required settings, every one present and free of whitespace and control characters. */
export interface RequiredSettings {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly apiKey: string;
  readonly signingKey: string;
}

type Name = keyof RequiredSettings;

const SETTINGS: readonly { readonly name: Name; readonly env: string; readonly credential: boolean }[] = [
  { name: 'baseUrl', env: 'MERCHANT_API_BASE_URL', credential: false },
  { name: 'clientId', env: 'MERCHANT_API_CLIENT_ID', credential: true },
  { name: 'apiKey', env: 'MERCHANT_API_KEY', credential: true },
  { name: 'signingKey', env: 'MERCHANT_API_SIGNING_KEY', credential: true },
];

/** Why a setting has no value: nothing passed or set, not read (credentials passed), or passed but not a non-empty string. */
type Gap = 'unset' | 'not-read' | 'invalid';

interface Missing {
  readonly name: Name;
  readonly env: string;
  readonly gap: Gap;
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

/** One clause per kind of gap; names only, never a value. */
function describe(missing: readonly Missing[], passed: readonly Name[]): string {
  const of = (gap: Gap): Missing[] => missing.filter((m) => m.gap === gap);
  const clauses: string[] = [];
  const invalid = of('invalid');
  if (invalid.length > 0) clauses.push(`${list(invalid.map((m) => m.name))} must be a non-empty string`);
  const unset = of('unset');
  if (unset.length > 0)
    clauses.push(`pass ${list(unset.map((m) => m.name))} to new MerchantClient() or set ${list(unset.map((m) => m.env))}`);
  const notRead = of('not-read');
  if (notRead.length > 0) {
    const one = notRead.length === 1;
    clauses.push(
      `${list(notRead.map((m) => m.name))} ${one ? 'was' : 'were'} not passed while ${list(passed)} ${passed.length === 1 ? 'was' : 'were'}, ` +
        `so ${list(notRead.map((m) => m.env))} ${one ? 'is' : 'are'} not read: the credentials come from one source ` +
        '(pass clientId, apiKey and signingKey, or none of them to read all three from the environment)',
    );
  }
  return clauses.join('; ');
}

/**
 * The base URL and credentials, from the options or the environment. The base URL is read from
 * `MERCHANT_API_BASE_URL` when not passed; the credentials from their variables only when none
 * of the three is passed (a setting given as `undefined` counts as not passed).
 *
 * @throws InvalidArgumentError naming every missing setting at once (its `argument` lists them,
 * comma-separated) and where each could come from, or the first value holding whitespace or
 * control characters; never a value.
 */
export function requiredSettings(given: GivenRequired, env: Env): RequiredSettings {
  const passed = SETTINGS.filter((s) => s.credential && given[s.name] !== undefined).map((s) => s.name);
  const values: Partial<Record<Name, string>> = {};
  const missing: Missing[] = [];
  for (const { name, env: envName, credential } of SETTINGS) {
    const own = given[name];
    const readsEnv = own === undefined && !(credential && passed.length > 0);
    const value = readsEnv ? env(envName) : own;
    if (typeof value === 'string' && value.trim() !== '') values[name] = value;
    else missing.push({ name, env: envName, gap: own !== undefined ? 'invalid' : readsEnv ? 'unset' : 'not-read' });
  }
  if (missing.length > 0) {
    const names = missing.map((m) => m.name);
    throw new InvalidArgumentError(names.join(', '), `${names.length === 1 ? 'is' : 'are'} required: ${describe(missing, passed)}.`);
  }
  for (const { name } of SETTINGS) {
    const value = values[name] ?? '';
    if (hasControlChars(value) || value !== value.trim())
      throw new InvalidArgumentError(name, 'contains whitespace or control characters (check how it was loaded).');
  }
  return values as RequiredSettings;
}
