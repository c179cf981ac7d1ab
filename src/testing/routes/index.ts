/** Every route the simulator serves, in match order. */
import { addressRoutes } from './addresses.js';
import { balanceRoutes } from './balances.js';
import { cardFundsRoutes } from './card-funds.js';
import { cardRoutes } from './cards.js';
import type { RouteDef } from './context.js';
import { conversionRoutes } from './conversions.js';
import { exchangeRoutes } from './exchange.js';
import { fundsRoutes } from './funds.js';
import { kycRoutes } from './kyc.js';
import { memberRoutes } from './members.js';
import { merchantRoutes } from './merchant.js';
import { qrpayRoutes } from './qrpay.js';
import { remitRoutes } from './remit.js';
import { remittanceRoutes } from './remittances.js';
import { reportRoutes } from './reports.js';

/** Card products come before `/v1/cards/:id` so `products` is not read as a card id. */
export const ALL_ROUTES: readonly RouteDef[] = [
  ...memberRoutes,
  ...fundsRoutes,
  ...balanceRoutes,
  ...conversionRoutes,
  ...merchantRoutes,
  ...kycRoutes,
  ...qrpayRoutes,
  ...remitRoutes,
  ...remittanceRoutes,
  ...reportRoutes,
  ...cardFundsRoutes,
  ...cardRoutes,
  ...exchangeRoutes,
  ...addressRoutes,
];
