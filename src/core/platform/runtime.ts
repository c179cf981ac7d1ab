/** What the runtime is, read without assuming `process` (absent in workerd, guarded in Deno). */

interface RuntimeGlobals {
  readonly window?: unknown;
  readonly document?: unknown;
  readonly Deno?: { readonly version?: { readonly deno?: string } };
  readonly Bun?: { readonly version?: string };
  readonly navigator?: { readonly userAgent?: string };
  readonly process?: { readonly versions?: { readonly node?: string }; readonly env?: Readonly<Record<string, string | undefined>> };
}

const g = globalThis as RuntimeGlobals;

/**
 * `name/version` for the user agent: `node/20.18.1`, `bun/1.2.0`, `deno/2.1.0`, `workerd`, or
 * `unknown`. Bun and Deno report a Node version too, so they are asked first.
 */
export function runtimeLabel(): string {
  try {
    if (g.Deno?.version?.deno !== undefined) return `deno/${g.Deno.version.deno}`;
    if (g.Bun?.version !== undefined) return `bun/${g.Bun.version}`;
    if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
    const node = g.process?.versions?.node;
    return node === undefined ? 'unknown' : `node/${node}`;
  } catch {
    return 'unknown';
  }
}

/**
 * One environment variable, or `undefined` where there is no `process.env` (workerd) or reading
 * it is refused (Deno without `--allow-env` throws).
 */
export function envVar(name: string): string | undefined {
  try {
    return g.process?.env?.[name];
  } catch {
    return undefined;
  }
}

/**
 * Whether this is a browser page: a `window` and a `document` (a worker has neither), and no
 * server runtime (Node with jsdom or happy-dom in a test, Bun and Deno define `process` or their
 * own global). Where the SDK's credentials must never be.
 */
export function inBrowserPage(): boolean {
  try {
    if (typeof g.window !== 'object' || g.window === null || typeof g.document !== 'object' || g.document === null) return false;
    return g.process?.versions?.node === undefined && g.Deno === undefined && g.Bun === undefined;
  } catch {
    return false;
  }
}
