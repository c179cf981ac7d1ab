import { isLooseObject, type Loose } from '../../src/index.js';

/** The object form of a loosely typed result; fails the test when the body was another JSON value. */
export function objectOf<T extends object>(value: Loose<T>): T {
  if (!isLooseObject(value)) throw new Error(`expected a JSON object, got ${JSON.stringify(value)}`);
  return value;
}
