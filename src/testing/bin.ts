#!/usr/bin/env node
/**
 * `merchant-stablecoin-sandbox`: runs the simulator on loopback for manual testing. Prints the
 * base URL and the sandbox's credentials (sandbox-only values). PORT and HOST are read from the
 * environment (default 4010 on 127.0.0.1). Stops on SIGINT or SIGTERM.
 */
import { createSandbox } from './index.js';

async function main(): Promise<void> {
  const sandbox = createSandbox();
  const server = await sandbox.listen({ port: Number(process.env['PORT'] ?? 4010), host: process.env['HOST'] ?? '127.0.0.1' });
  const { clientId, apiKey, signingKey } = sandbox.credentials;
  process.stdout.write(
    [
      `Merchant Stablecoin sandbox listening on ${server.url}`,
      `  MERCHANT_API_BASE_URL=${server.url}`,
      `  MERCHANT_API_CLIENT_ID=${clientId}`,
      `  MERCHANT_API_KEY=${apiKey}`,
      `  MERCHANT_API_SIGNING_KEY=${signingKey}`,
      '(sandbox-only credentials; Ctrl-C to stop)',
      '',
    ].join('\n'),
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`sandbox failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
