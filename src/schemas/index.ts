/**
 * Zod schemas of every response shape the spec gives. Types are inferred from them, never
 * written twice. All objects are loose (unknown fields pass) and all enums are open.
 */
export * from './common.js';
export * from './balances.js';
export * from './withdrawals.js';
export * from './qrpay.js';
export * from './kyc.js';
export * from './merchant.js';
export * from './remittances.js';
export * from './cards.js';
export * from './reports.js';
export * from './sandbox.js';
export * from './token.js';
