import type { Signer } from './signing.js';
import { builtinModule } from './builtin.js';
import { NodeCryptoSigner, type NodeCryptoModule } from './node-signer.js';
import { WebCryptoSigner } from './web-signer.js';

/**
 * The signer of one client: `node:crypto` where the runtime has it (Node, Bun, Deno: measured
 * faster on each, see `npm run bench`), else Web Crypto (workerd, edge runtimes, browsers).
 */
export function createSigner(
  signingKey: string,
  nodeCrypto: NodeCryptoModule | null = builtinModule<NodeCryptoModule>('node:crypto') ?? null,
): Signer {
  return nodeCrypto === null ? new WebCryptoSigner(signingKey) : new NodeCryptoSigner(nodeCrypto, signingKey);
}
