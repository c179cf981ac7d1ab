/**
 * Number of fast-check runs: small enough for `npm test` on two CI cores, ten times more under
 * `STRESS=1`. Each property states its own base count.
 */
const STRESS = process.env.STRESS === '1' || process.env.STRESS === 'true';

export function runs(base: number): number {
  return STRESS ? base * 10 : base;
}
