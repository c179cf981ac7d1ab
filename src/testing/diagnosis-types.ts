/** What a signature diagnosis says (see diagnosis.ts), apart from how it is found. */
/** Which part of a signed request a {@link SignatureDiagnosis} blames. */
export type DiagnosisComponent = 'headers' | 'method' | 'path' | 'timestamp' | 'nonce' | 'body' | 'format' | 'encoding' | 'key' | 'unknown';

/** What the sandbox found out about a refused signature (`GET /__sandbox/requests/{request_id}`). */
export interface SignatureDiagnosis {
  /** The code the request was refused with. */
  code: 'invalid_signature' | 'timestamp_out_of_range' | 'nonce_reused';
  /** The first component found to differ (`unknown` when no single variant explains it). */
  component: DiagnosisComponent;
  /** One sentence naming the difference, e.g. `path: you signed /v1/withdrawals, the request line was /v1/withdrawals?x=1`. */
  message: string;
  /** What the request carried. */
  received: {
    /** Method as sent. */
    method: string;
    /** Path with query exactly as on the request line. */
    path: string;
    /** `x-timestamp`, or null when absent. */
    timestamp: string | null;
    /** `x-nonce`, or null when absent. */
    nonce: string | null;
    /** Hex sha256 of the raw body bytes received. */
    bodySha256: string;
    /** `x-signature`, or null when absent. */
    signature: string | null;
  };
  /** The exact string-to-sign the sandbox expected: the five components joined with `\n`. */
  expectedStringToSign: string;
}
