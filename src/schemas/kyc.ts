import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { integer, isoTimestamp, openEnum } from './common.js';

/** KYC application statuses the spec names (`pending` on submission). */
const KYC_APPLICATION_STATUSES = ['pending'] as const;

/** A KYC application (Resources > KYC application). */
export const kycApplicationSchema = looseObject({
  /** `kyc_<id>` for a person-level profile, or `cpkyc_<product>_<n>` for a product snapshot. */
  id: z.string(),
  /** Empty string when no product was given. */
  card_product_id: z.string(),
  /** Person-level KYC identifier. */
  kyc_id: z.string(),
  /** `pending` on submission; poll `kyc.status()` for the result. */
  status: openEnum(KYC_APPLICATION_STATUSES),
  /** KYC level of the application. */
  level: integer,
});

/** A KYC application. */
export interface KycApplication extends z.infer<typeof kycApplicationSchema> {}

/** The binding of a quick KYC result. */
const quickKycBindingSchema = looseObject({
  /** UUID; pass it as `quick_kyc_binding_id` for the same member. */
  id: z.string(),
  /** Identity document type of the profile. */
  identity_type: z.string(),
  /** Two-letter code, or `""` for historical profiles. */
  identity_issue_country: z.string(),
  /** Nationality of the profile. */
  nationality: z.string(),
  /** Address country of the profile. */
  address_country: z.string(),
  /** ISO 8601. */
  created_at: isoTimestamp,
});

/** A quick KYC binding (Resources > Quick KYC binding result). */
export const quickKycResultSchema = looseObject({
  /** True when an existing binding was reused (200, no charge). */
  reused: z.boolean(),
  /** Bindings still allowed for the member. */
  remaining: integer,
  /** The binding reused or newly allocated. */
  binding: quickKycBindingSchema,
});

/** A quick KYC binding result. */
export interface QuickKycResult extends z.infer<typeof quickKycResultSchema> {}
