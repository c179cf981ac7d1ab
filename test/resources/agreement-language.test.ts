/**
 * The agreement's language when `lang` is omitted: the spec says `Accept-Language` is used, and
 * the OpenAPI document declares that header on `GET /v1/remit/vp/agreement`, pointing SDK users to
 * `options.headers`. Through the sandbox over HTTP: the header the caller gives is what went over
 * the wire, and the answer is in its language; `lang` given wins over it.
 */
import { describe, expect, it } from 'vitest';
import { servedWorlds } from '../testing/served.js';

const serve = servedWorlds();
const TEXTS = { en: { title: 'Agreement', body: 'Terms.' }, fr: { title: 'Contrat', body: 'Conditions.' } };
const agreementRequests = (sandbox: Awaited<ReturnType<typeof serve>>['sandbox']) =>
  sandbox.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/remit/vp/agreement'));

describe('GET /v1/remit/vp/agreement and Accept-Language', () => {
  it('without lang, the Accept-Language of options.headers is sent and chooses the language', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.setAgreement(TEXTS);
    const text = await client.remittances.agreement(undefined, { headers: { 'accept-language': 'fr-CA,fr;q=0.9' } });
    expect(text.agreement).toMatchObject({ lang: 'fr', title: 'Contrat' });
    const [sent] = agreementRequests(sandbox);
    expect(sent!.headers['accept-language']).toBe('fr-CA,fr;q=0.9');
    expect(sent!.path).toBe('/v1/remit/vp/agreement');
  });

  it('lang given wins over Accept-Language', async () => {
    const { sandbox, client } = await serve();
    sandbox.state.setAgreement(TEXTS);
    const text = await client.remittances.agreement({ lang: 'en' }, { headers: { 'accept-language': 'fr' } });
    expect(text.agreement.lang).toBe('en');
    expect(agreementRequests(sandbox).map((r) => r.path)).toEqual(['/v1/remit/vp/agreement?lang=en']);
  });
});
