import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/telemetry/redactor.js';

// The boundary that masks what a server echoes: the SDK's own secrets, the tokens it sent, and a
// call's extra secrets (signatures, a PIN), each as sent, percent-encoded and JSON-escaped.
const API_KEY = 'ak_live_4f9c2e7a';
const SIGNING_KEY = 'sk+/"quoted"=';
const SIGNATURE = 'h9Xy+2/Qz0k=AbCd';

describe('Redactor', () => {
  it('masks every form of the client secrets, a remembered token and a call secret', () => {
    const r = new Redactor([API_KEY, SIGNING_KEY]);
    r.rememberToken('tok_abcdef');
    const echoed = [
      API_KEY,
      encodeURIComponent(SIGNING_KEY),
      JSON.stringify(SIGNING_KEY).slice(1, -1),
      'tok_abcdef',
      encodeURIComponent(SIGNATURE),
      SIGNATURE,
    ].join(' | ');
    expect(r.redact(echoed, [SIGNATURE])).toBe(Array(6).fill('[redacted]').join(' | '));
  });

  it('masks a text that is exactly a secret, and leaves a shorter text as it is', () => {
    const r = new Redactor([API_KEY]);
    expect(r.redact(API_KEY)).toBe('[redacted]');
    expect(r.redact(SIGNATURE, [SIGNATURE])).toBe('[redacted]');
    expect(r.redact('req_1', [SIGNATURE])).toBe('req_1');
    expect(r.redact(API_KEY.slice(1))).toBe(API_KEY.slice(1));
  });

  it('keeps the current token and four before it; a sixth token ago is no longer masked', () => {
    const r = new Redactor([]);
    const tokens = ['tok_0000', 'tok_1111', 'tok_2222', 'tok_3333', 'tok_4444', 'tok_5555'];
    for (const t of tokens) r.rememberToken(t);
    expect(r.redact(tokens.join(' '))).toBe(['tok_0000', ...Array(5).fill('[redacted]')].join(' '));
    // Sending an older token again makes it current without dropping another.
    r.rememberToken('tok_2222');
    expect(r.redact('tok_1111 tok_2222 tok_5555')).toBe('[redacted] [redacted] [redacted]');
  });

  it('masks secrets of three characters or more (a PIN) and ignores shorter ones', () => {
    const r = new Redactor(['ab']);
    expect(r.redact('pin 1234 ab', ['1234', '12'])).toBe('pin [redacted] ab');
  });
});
