/**
 * Test helpers: envelope builders, a `node:http` receiver on 127.0.0.1:0 and a plain sender
 * that delivers like the spec's service (POST JSON with `z-event-id` and `z-event-type`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Envelope {
  event_id: string;
  event_type: string;
  created_at: string;
  merchant_id: string;
  livemode: boolean;
  data: Record<string, unknown>;
  [extra: string]: unknown;
}

function eventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

export function envelope(eventType: string, data: Record<string, unknown>, overrides: Partial<Envelope> = {}): Envelope {
  return {
    event_id: eventId(),
    event_type: eventType,
    created_at: '2026-09-01T10:00:00Z',
    merchant_id: 'mch_test',
    livemode: false,
    data: { external_member_id: 'ext-1', status_version: 1, ...data },
    ...overrides,
  };
}

export function headersFor(env: { event_id: string; event_type: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'z-event-id': env.event_id,
    'z-event-type': env.event_type,
    'z-signature': 'unused',
    ...extra,
  };
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

export async function startReceiver(listener: RequestListener): Promise<Receiver> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** POSTs `body` (exact bytes) with `headers`; resolves with the answer. */
export function post(url: string, body: string | Buffer, headers: Record<string, string>, method = 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const req = request(url, { method, agent: false, headers: { ...headers, 'content-length': String(bytes.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // keep text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Delivers an envelope like the service: at least once, retrying on non-2xx up to `attempts`. */
export async function deliver(url: string, env: Envelope, attempts = 1): Promise<Answer[]> {
  const body = JSON.stringify(env);
  const answers: Answer[] = [];
  for (let i = 0; i < attempts; i++) {
    const answer = await post(url, body, headersFor(env));
    answers.push(answer);
    if (answer.status >= 200 && answer.status < 300) break;
  }
  return answers;
}

/** A logger that records lines, for assertions and to keep test output quiet. */
export function recordingLogger(): {
  lines: Array<{ level: string; message: string; fields?: unknown }>;
  logger: Record<'debug' | 'info' | 'warn' | 'error', (m: string, f?: unknown) => void>;
  /** Resolves once a line whose message contains `text` has been logged (already, or later). */
  logged(text: string): Promise<void>;
} {
  const lines: Array<{ level: string; message: string; fields?: unknown }> = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const at = (level: string) => (message: string, fields?: unknown) => {
    lines.push({ level, message, fields });
    for (const w of [...waiters]) {
      if (!message.includes(w.text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  return {
    lines,
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    logged(text) {
      if (lines.some((l) => l.message.includes(text))) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ text, resolve }));
    },
  };
}

/** Deterministic shuffle (mulberry32) so that a failing order can be replayed from its seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const rnd = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
