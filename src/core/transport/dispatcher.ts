/**
 * An undici dispatcher for the Node transport: an `Agent`, `Pool`, `ProxyAgent` or `MockAgent`
 * from undici 7, or one composed with `.compose(...)`.
 *
 * Typed by shape, so that the SDK's types need neither undici nor `@types/node`: the SDK calls
 * `dispatch` with undici's own dispatch options and a handler of undici 7's handler API, and
 * `close` never (the caller owns the dispatcher).
 */
export interface UndiciDispatcher {
  /** undici's `Dispatcher.dispatch`. */
  dispatch(options: never, handler: never): boolean;
  /** undici's `Dispatcher.close`. */
  close(): Promise<void>;
}
