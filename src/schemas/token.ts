import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { integer, openEnum } from './common.js';

/** Token exchange response (Resources > Other response shapes, Authentication > Stage 1). */
export const tokenSchema = looseObject({
  /** The access token (a secret: never log it). */
  auth_token: z.string(),
  /** Unix seconds (not milliseconds, not ISO). */
  expired_at: integer,
  /** `Bearer`. */
  token_type: openEnum(['Bearer']),
  /** Scopes granted to the key. */
  scopes: z.array(z.string()),
});
