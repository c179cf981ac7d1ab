/** Version of this SDK, sent in the user agent. */
export const SDK_VERSION = '0.1.0';
