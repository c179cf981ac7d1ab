/**
 * `npm run openapi`: writes `openapi.json`, the OpenAPI 3.1 document of the API, generated from
 * the SDK's tables (`scripts/openapi/document.ts`). `--check` exits 1 when the committed file
 * differs from what the tables generate (a test compares them too).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOpenApiDocument } from './openapi/document.js';

/** The repository root. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the document lives (shipped in the package as `merchant-stablecoin/openapi.json`). */
export const OPENAPI_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));

/** The document as committed: two-space JSON and a final newline. */
export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApiDocument(ROOT), null, 2)}\n`;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const text = renderOpenApi();
  if (process.argv.includes('--check')) {
    if (readFileSync(OPENAPI_PATH, 'utf8') !== text) {
      console.error('openapi.json is out of date: run `npm run openapi`.');
      process.exit(1);
    }
  } else {
    writeFileSync(OPENAPI_PATH, text);
    console.log(`wrote openapi.json (${Buffer.byteLength(text)} bytes)`);
  }
}
