/**
 * The parts of `node:http`'s `IncomingMessage` and `ServerResponse` the webhook listener uses,
 * typed structurally: the webhooks entry's declarations then compile without `@types/node`
 * (Bun, Deno, workerd), and Node's own objects (Express's included) still fit.
 */

/** A `node:http` request as the listener reads it (Node's `IncomingMessage` fits). */
export interface NodeRequestLike {
  /** The request method (`POST` for deliveries). */
  readonly method?: string | undefined;
  /** The request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** True once the body was read by someone else (a middleware). */
  readonly readableEnded: boolean;
  /** Discards the rest of the body. */
  resume(): unknown;
  /** Closes the connection. */
  destroy(error?: Error): unknown;
  /** Body chunks as they arrive. */
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** Stops listening for body chunks. */
  off(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** End of the body, or the connection closing before it. */
  once(event: 'end' | 'close', listener: () => void): unknown;
  /** A read error. */
  once(event: 'error', listener: (err: Error) => void): unknown;
}

/** A `node:http` response as the listener writes it (Node's `ServerResponse` fits). */
export interface NodeResponseLike {
  /** True once the status line and headers were sent. */
  readonly headersSent: boolean;
  /** True once `end()` was called. */
  readonly writableEnded: boolean;
  /** Sends the status and headers. */
  writeHead(statusCode: number, headers: Record<string, string>): unknown;
  /** Sends the body and ends the response. */
  end(body: Uint8Array): unknown;
  /** Closes the connection. */
  destroy(error?: Error): unknown;
  /** The response was handed to the operating system. */
  once(event: 'finish', listener: () => void): unknown;
}
