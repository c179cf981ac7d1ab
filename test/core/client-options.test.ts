/**
 * The constructor's options as a plain JavaScript caller passes them: a misspelt key is refused
 * by name with the option it meant (it would otherwise be ignored and the setting taken from the
 * environment or the default), every missing setting is named in one error, and the three
 * credentials come from one source (any passed: none read from `MERCHANT_API_*`). Against a real
 * socket, with the environment stubbed; "nothing sent" is what the server and a counting fetch saw.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, MerchantClient, type MerchantClientOptions } from '../../src/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { API_KEY, CLIENT_ID, SIGNING_KEY, startWireServer, type WireServer } from '../helpers/wire-server.js';

const ENV = ['MERCHANT_API_BASE_URL', 'MERCHANT_API_CLIENT_ID', 'MERCHANT_API_KEY', 'MERCHANT_API_SIGNING_KEY'] as const;

/** Every option, so that a new one without a typo case here fails to compile. */
const EVERY_OPTION: Record<keyof MerchantClientOptions, true> = {
  baseUrl: true,
  allowInsecureHttp: true,
  clientId: true,
  apiKey: true,
  signingKey: true,
  timeoutMs: true,
  maxRetries: true,
  maxRetryAfterMs: true,
  backoff: true,
  dispatcher: true,
  transport: true,
  fetch: true,
  logger: true,
  logLevel: true,
  dangerouslyAllowBrowser: true,
  userAgentSuffix: true,
  tokenStore: true,
  tokenRenewBeforeSeconds: true,
  validateResponses: true,
  maxResponseBytes: true,
  limiter: true,
  maxClockSkewMs: true,
  telemetry: true,
  journal: true,
};

let server: WireServer;
let other: WireServer;
let fetched: number;
const countingFetch = (input: string, init: RequestInit): Promise<Response> => {
  fetched++;
  return fetch(input, init);
};

beforeEach(async () => {
  server = await startWireServer();
  // Where the environment points: a second account's server, which must never be reached.
  other = await startWireServer('sk_other_account');
  server.on('GET', '/v1/assets', { body: { data: [] } });
  server.on('POST', '/v1/exchange/orders', { status: 201, body: {} });
  fetched = 0;
  for (const name of ENV) vi.stubEnv(name, undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
  await other.close();
});

/** What `new MerchantClient(options)` threw, the options passed as plain JavaScript passes them. */
function refusal(options: unknown): InvalidArgumentError {
  try {
    new MerchantClient(options as MerchantClientOptions);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return e as InvalidArgumentError;
  }
  throw new Error('expected the constructor to refuse the options');
}

const explicit = (): MerchantClientOptions => ({
  baseUrl: server.url,
  clientId: CLIENT_ID,
  apiKey: API_KEY,
  signingKey: SIGNING_KEY,
  transport: 'fetch',
  fetch: countingFetch,
});

function stubOtherAccount(): void {
  vi.stubEnv('MERCHANT_API_BASE_URL', other.url);
  vi.stubEnv('MERCHANT_API_CLIENT_ID', 'cli_other_account');
  vi.stubEnv('MERCHANT_API_KEY', 'ak_other_account');
  vi.stubEnv('MERCHANT_API_SIGNING_KEY', 'sk_other_account');
}

function nothingSent(): void {
  expect(fetched).toBe(0);
  expect(server.requests).toHaveLength(0);
  expect(other.requests).toHaveLength(0);
}

describe('an unknown option', () => {
  it('baseURL is refused with baseUrl, though MERCHANT_API_BASE_URL would have supplied one; nothing sent', () => {
    stubOtherAccount();
    const { baseUrl, ...rest } = explicit();
    const err = refusal({ ...rest, baseURL: baseUrl });
    expect(err.argument).toBe('baseURL');
    expect(err.message).toBe('baseURL: is not an option of new MerchantClient(); did you mean `baseUrl`?');
    nothingSent();
  });

  it('maxRetry: 5 is refused with maxRetries instead of being dropped', () => {
    expect(refusal({ ...explicit(), maxRetry: 5 }).message).toBe(
      'maxRetry: is not an option of new MerchantClient(); did you mean `maxRetries`?',
    );
    nothingSent();
  });

  it('a typo of every option, in case or a letter, is refused naming that option; nothing sent', () => {
    const names = Object.keys(EVERY_OPTION);
    for (const name of names) {
      const middle = Math.floor(name.length / 2);
      const typos = [name.toLowerCase() === name ? name.toUpperCase() : name.toLowerCase(), name.slice(0, middle) + name.slice(middle + 1)];
      for (const typo of typos) {
        const err = refusal({ ...explicit(), [typo]: 1 });
        expect(err.argument, typo).toBe(typo);
        expect(err.message, typo).toBe(`${typo}: is not an option of new MerchantClient(); did you mean \`${name}\`?`);
      }
    }
    nothingSent();
  });

  it('is refused whatever its value, undefined included, and one far from every option lists them all', () => {
    expect(refusal({ ...explicit(), baseURL: undefined }).argument).toBe('baseURL');
    const err = refusal({ ...explicit(), headers: { 'x-shop': '1' } });
    expect(err.message).toBe(`headers: is not an option of new MerchantClient(); the options are ${Object.keys(EVERY_OPTION).join(', ')}.`);
    nothingSent();
  });

  it('options that are not an object are refused by name', () => {
    for (const options of [null, 'https://h.example', 5, []]) expect(refusal(options).argument).toBe('options');
  });
});

describe('missing settings', () => {
  it('with nothing passed and nothing set, one error names all four and their variables', () => {
    const err = refusal({});
    expect(err.argument).toBe('baseUrl, clientId, apiKey, signingKey');
    expect(err.message).toBe(
      'baseUrl, clientId, apiKey, signingKey: are required: pass baseUrl, clientId, apiKey and signingKey to new MerchantClient() ' +
        'or set MERCHANT_API_BASE_URL, MERCHANT_API_CLIENT_ID, MERCHANT_API_KEY and MERCHANT_API_SIGNING_KEY.',
    );
  });

  it('a blank or non-string value is named with the other gaps', () => {
    const err = refusal({ clientId: CLIENT_ID, apiKey: '  ', signingKey: 7 });
    expect(err.argument).toBe('baseUrl, apiKey, signingKey');
    expect(err.message).toContain('apiKey and signingKey must be a non-empty string; pass baseUrl to new MerchantClient()');
  });
});

describe('credentials from one source', () => {
  it('clientId and apiKey passed, the signing key set in the environment: refused naming signingKey; nothing sent', async () => {
    vi.stubEnv('MERCHANT_API_SIGNING_KEY', 'sk_other_account');
    const { signingKey: _signingKey, ...partial } = explicit();
    const err = refusal(partial);
    expect(err.argument).toBe('signingKey');
    expect(err.message).toBe(
      'signingKey: is required: signingKey was not passed while clientId and apiKey were, so MERCHANT_API_SIGNING_KEY is not read: ' +
        'the credentials come from one source (pass clientId, apiKey and signingKey, or none of them to read all three from the environment).',
    );
    expect(err.message).not.toContain('sk_other_account');
    nothingSent();
    // The same options with the signing key do reach the server: the refusal is what kept it quiet.
    const client = new MerchantClient({ ...partial, signingKey: SIGNING_KEY });
    await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm' });
    expect(server.calls()[0]!.signatureValid).toBe(true);
    await client.close();
  });

  it('one credential passed, the other two in the environment: both named, the environment not read', () => {
    stubOtherAccount();
    const err = refusal({ baseUrl: server.url, signingKey: SIGNING_KEY, transport: 'fetch', fetch: countingFetch });
    expect(err.argument).toBe('clientId, apiKey');
    expect(err.message).toContain(
      'clientId and apiKey were not passed while signingKey was, so MERCHANT_API_CLIENT_ID and MERCHANT_API_KEY are not read',
    );
    nothingSent();
  });

  it('all four from the environment still work: the wire carries its client id and key, signed with its signing key', async () => {
    vi.stubEnv('MERCHANT_API_BASE_URL', server.url);
    vi.stubEnv('MERCHANT_API_CLIENT_ID', CLIENT_ID);
    vi.stubEnv('MERCHANT_API_KEY', API_KEY);
    vi.stubEnv('MERCHANT_API_SIGNING_KEY', SIGNING_KEY);
    // Given as undefined (a spread of optional settings) counts as not passed.
    const client = new MerchantClient({ clientId: undefined, transport: 'fetch', fetch: countingFetch });
    await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm' });
    const [exchange, call] = server.requests;
    expect(exchange!.headers['x-client-id']).toBe(CLIENT_ID);
    expect(exchange!.headers['x-api-key']).toBe(API_KEY);
    expect(call!.signatureValid).toBe(true);
    expect(fetched).toBe(2);
    await client.close();
  });

  it('all passed: the environment of another account is ignored, base URL included', async () => {
    stubOtherAccount();
    const client = new MerchantClient(explicit());
    await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {}, onBehalfOf: 'm' });
    const [exchange, call] = server.requests;
    expect(exchange!.headers['x-client-id']).toBe(CLIENT_ID);
    expect(exchange!.headers['x-api-key']).toBe(API_KEY);
    expect(call!.signatureValid).toBe(true);
    expect(other.requests).toHaveLength(0);
    await client.close();
  });

  it("sandbox.client() passes its own three and ignores another account's environment", async () => {
    stubOtherAccount();
    const sandbox = createSandbox();
    const client = sandbox.client();
    await expect(client.assets.list()).resolves.toBeDefined();
    expect(other.requests).toHaveLength(0);
    await client.close();
  });
});
