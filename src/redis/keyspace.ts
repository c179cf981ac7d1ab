import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../core/errors/errors.js';

/** The prefix of every key the fleet stores write when none is given. */
const DEFAULT_PREFIX = 'merchant-stablecoin';

/**
 * The key names of one fleet store. Every key starts with `<prefix>:`, so that one Redis ACL key
 * pattern (`~<prefix>:*`) grants the fleet everything it writes, lock keys included. Keys that
 * one script touches together carry the same hash tag after the prefix
 * (`<prefix>:<kind>:{<tag>}:<part>`): Redis Cluster hashes only the part inside the first braces,
 * so they share a slot, and the name still starts with the prefix.
 *
 * Written once for every store of `src/redis` (a new store builds its keys with it).
 */
export class RedisKeyspace {
  /** The prefix, without its trailing `:`. */
  readonly prefix: string;

  /** @throws InvalidArgumentError when the prefix cannot be granted by an ACL pattern or would break hash tags. */
  constructor(prefix: string | undefined) {
    const p = prefix ?? DEFAULT_PREFIX;
    // Braces would become the hash tag; glob characters would make `~<prefix>:*` grant more (or less) than the fleet's keys.
    if (typeof p !== 'string' || p === '' || /[\s{}*?[\]\\]/.test(p))
      throw new InvalidArgumentError('prefix', 'must be a non-empty string without whitespace, braces or glob characters (*?[]\\).');
    this.prefix = p;
  }

  /** `<prefix>:<parts joined by ':'>`: a key that no script shares with another. */
  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /**
   * `<prefix>:<kind>:{<tag>}` plus `:<part>` when given: keys with the same kind and tag share a
   * Redis Cluster slot. `tag` must not contain braces (use {@link keyDigest}).
   */
  tagged(kind: string, tag: string, part?: string): string {
    const base = `${this.prefix}:${kind}:{${tag}}`;
    return part === undefined ? base : `${base}:${part}`;
  }

  /** The ACL key pattern that grants every key of this keyspace: `~<prefix>:*`. */
  get aclPattern(): string {
    return `~${this.prefix}:*`;
  }
}

/** A short, non-reversible digest for key names (no secret or long input in a key). */
export function keyDigest(value: string, hexDigits = 32): string {
  return createHash('sha256').update(value).digest('hex').slice(0, hexDigits);
}
