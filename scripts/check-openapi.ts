/**
 * `npm run check:openapi`: lints `openapi.json` with Redocly's lint engine (`@redocly/openapi-core`,
 * the library behind `redocly lint`) and its `recommended` ruleset, which includes the structural
 * check of an OpenAPI 3.1 document. Any error fails; warnings are printed and counted.
 */
import { fileURLToPath } from 'node:url';
import { createConfig, formatProblems, getTotals, lint } from '@redocly/openapi-core';

const DOCUMENT = fileURLToPath(new URL('../openapi.json', import.meta.url));

const config = await createConfig({ extends: ['recommended'] });
const problems = await lint({ ref: DOCUMENT, config });
const totals = getTotals(problems);
formatProblems(problems, { format: 'stylish', totals, version: 'openapi-core' });
console.log(`openapi.json: ${totals.errors} errors, ${totals.warnings} warnings (Redocly recommended rules)`);
if (totals.errors > 0) process.exit(1);
