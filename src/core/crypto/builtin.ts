/**
 * A Node built-in module by name, without an `import` statement: `process.getBuiltinModule`
 * (Node 20.16+, Bun, Deno) answers synchronously, and no bundler sees a `node:` import, so a
 * platform-neutral bundle builds. `undefined` where the runtime has none (workerd without
 * `nodejs_compat`, browsers) or refuses it.
 */
export function builtinModule<T>(name: string): T | undefined {
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    return process?.getBuiltinModule?.(name) as T | undefined;
  } catch {
    return undefined;
  }
}
