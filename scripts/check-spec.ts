/**
 * `npm run check:spec [-- --update] [-- path/to/api-spec.md]`: runs the cross-checks of
 * `test/check-spec/` against the interface specification document: the endpoint table, the error
 * catalogue and the fixture, and `openapi.json` fact by fact (operations, auth, headers, errors by
 * status, request and response fields, limits, pagination and list bodies, the pending action's
 * kinds, webhooks and their data fields, the spec quotes of the generator's rules), printing the
 * count of facts checked and each one disagreeing; planted differences in copies of the document
 * show that each kind of fact is caught. `OPENAPI_DOCUMENT=<file>` checks another version.
 *
 * The document is looked for at the path given, else `MERCHANT_API_SPEC`, else in the shared
 * folder beside the repository. `npm test` never needs it; `.ci/run` runs this when it is there.
 * `--update` rewrites `test/fixtures/spec-facts.json` from the document first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const update = args.includes('--update');
const given = args.find((a) => !a.startsWith('--'));
const specPath = resolve(given ?? process.env['MERCHANT_API_SPEC'] ?? '../shared/spec/api-spec.md');

if (!existsSync(specPath)) {
  process.stderr.write(`check:spec: no specification document at ${specPath} (pass its path, or set MERCHANT_API_SPEC).\n`);
  process.exit(2);
}

const vitest = resolve('node_modules/vitest/vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.check-spec.config.ts'], {
  stdio: 'inherit',
  env: { ...process.env, MERCHANT_API_SPEC: specPath, ...(update ? { UPDATE_SPEC_FACTS: '1' } : {}) },
});
process.exit(run.status ?? 1);
