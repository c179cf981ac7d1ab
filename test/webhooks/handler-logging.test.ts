/**
 * The webhook receiver speaks up like the client: `console` by default at `warn`, the same
 * `logLevel` option and `MERCHANT_API_LOG`, a warning once at creation without `verify`, and a
 * line when it is given a parsed body instead of the raw bytes (behind `express.json()`).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler } from '../../src/webhooks/index.js';

const NO_VERIFY = /^\[merchant-stablecoin\] webhooks: no verify hook, so deliveries are not authenticated/;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function consoleLines(): { warn: string[]; error: string[]; info: string[]; debug: string[] } {
  const lines = { warn: [] as string[], error: [] as string[], info: [] as string[], debug: [] as string[] };
  for (const level of ['warn', 'error', 'info', 'debug'] as const)
    vi.spyOn(console, level).mockImplementation((text: unknown) => void lines[level].push(String(text)));
  return lines;
}

describe('the receiver logs to the console by default, at warn', () => {
  it('warns once at creation without verify, as one line of text', () => {
    const lines = consoleLines();
    createWebhookHandler({ onEvent: () => undefined });
    expect(lines.warn).toHaveLength(1);
    expect(lines.warn[0]).toMatch(NO_VERIFY);
    createWebhookHandler({ onEvent: () => undefined, verify: () => true });
    expect(lines.warn).toHaveLength(1);
  });

  it('says "pass the raw body" when given a parsed body (express.json())', async () => {
    const lines = consoleLines();
    const handler = createWebhookHandler({ onEvent: () => undefined, verify: () => true });
    const answer = await handler.handle({ event_id: 'evt_1' } as never, {});
    expect(answer).toMatchObject({ status: 500, outcome: 'raw_body_required' });
    expect(lines.error).toHaveLength(1);
    expect(lines.error[0]).toMatch(/^\[merchant-stablecoin\] webhooks: .*raw/i);
  });

  it('a processed delivery says nothing at warn; info and debug lines appear at logLevel debug', async () => {
    const lines = consoleLines();
    const quiet = createWebhookHandler({ onEvent: () => undefined, verify: () => true });
    const body = JSON.stringify({ event_id: 'evt_1', event_type: 'card.status', created_at: '2026-11-29T00:00:00Z', data: {} });
    await quiet.handle(body, { 'z-event-id': 'evt_1', 'z-event-type': 'card.status' });
    expect([...lines.warn, ...lines.error, ...lines.info, ...lines.debug]).toEqual([]);
    const chatty = createWebhookHandler({ onEvent: () => undefined, verify: () => true, logLevel: 'debug' });
    await chatty.handle(body.replace('evt_1', 'evt_2'), { 'z-event-id': 'evt_2', 'z-event-type': 'card.status' });
    expect(lines.debug.join('\n')).toMatch(/webhooks: event processed/);
  });

  it('logLevel off, and MERCHANT_API_LOG, decide as for the client', () => {
    const lines = consoleLines();
    createWebhookHandler({ onEvent: () => undefined, logLevel: 'off' });
    vi.stubEnv('MERCHANT_API_LOG', 'error');
    createWebhookHandler({ onEvent: () => undefined });
    expect(lines.warn).toEqual([]);
    vi.stubEnv('MERCHANT_API_LOG', 'loud');
    expect(() => createWebhookHandler({ onEvent: () => undefined })).toThrow(/MERCHANT_API_LOG must be/);
    expect(() => createWebhookHandler({ onEvent: () => undefined, logLevel: 'verbose' as never })).toThrow(/logLevel/);
  });

  it('a logger of your own gets the fields as an object, at the level asked', () => {
    const got: Array<[string, unknown]> = [];
    createWebhookHandler({ onEvent: () => undefined, logger: { warn: (m: string, f?: unknown) => void got.push([m, f]) } });
    expect(got).toHaveLength(1);
    expect(got[0]![0]).toMatch(/^webhooks: no verify hook/);
  });
});
