// Named imports: `z.core.X` through zod/mini's namespace keeps all of zod core (locales included)
// in a consumer's bundle (one-call bundle 140 KB -> 517 KB, measured).
import { $constructor, $ZodObjectJIT, type $ZodLooseShape, type $loose, type $ZodObjectDef } from 'zod/v4/core';
import { ZodMiniType, unknown, type ZodMiniObject } from 'zod/mini';

// Typed as plain functions: zod declares its `init`s as assertions, which TypeScript only allows
// through names with explicit types.
const initCompiled: (inst: ZodMiniObject, def: $ZodObjectDef) => void = (inst, def) => $ZodObjectJIT.init(inst, def);
const initMini: (inst: ZodMiniObject, def: $ZodObjectDef) => void = (inst, def) => ZodMiniType.init(inst, def);

/**
 * `zod/mini`'s object runs on zod's generic path; classic zod's compiles each object's shape into
 * one function on first use. This is the mini object on the compiled path: a 100-item page
 * validates about 4.5 times faster (`npm run bench`, validation row). Where the runtime forbids
 * code generation (workerd, a strict CSP), zod falls back to the generic path by itself.
 */
const CompiledLooseObject: $constructor<ZodMiniObject, $ZodObjectDef> = $constructor(
  'ZodMiniObject',
  (inst: ZodMiniObject, def: $ZodObjectDef) => {
    initCompiled(inst, def);
    initMini(inst, def);
  },
);

/** `z.looseObject(shape)` of `zod/mini` (unknown members kept), on zod's compiled object path. */
export function looseObject<const T extends $ZodLooseShape>(shape: T): ZodMiniObject<T, $loose> {
  const def: $ZodObjectDef = { type: 'object', shape, catchall: unknown() };
  return new CompiledLooseObject(def) as unknown as ZodMiniObject<T, $loose>;
}
