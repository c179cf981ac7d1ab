/** What the runtime is, read without assuming `process` (absent in workerd, guarded in Deno). */

interface RuntimeGlobals {
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
