/** Sample bodies in the spec's shapes, shared by the schema and wire tests. */
export const balanceRow = {
  asset: 'USDT',
  available: '100.000000',
  pending: '0',
  frozen: '0',
  isolated: '0',
  locked: '5.5',
  card: '0',
  earn: '0',
  withdrawing: '1.25',
  ledger_scale: 6,
  display_scale: 2,
};

export const withdrawalOrder = { id: 'wdr_0b6a', status: 'locked', asset: 'USDT', amount: '25.50', ledger_scale: 6, to_address: 'TQ1abc' };

export const quoteItem = { asset: 'USDT', ledger_scale: 6, display_scale: 2, customer_total: '10.05', fee: '0.05', sufficient: true };

export const qrQuote = {
  payee: 'Coffee Shop',
  acquirer_currency: 'THB',
  acquirer_amount: '350.00',
  expires_at: '',
  chosen: quoteItem,
  options: [quoteItem, { ...quoteItem, asset: 'USDC', fee: '0', fee_asset: 'USDT', fee_amount: '0.01', fee_ledger_scale: 6 }],
  blocked_reason: '',
};

export const kycApplication = { id: 'kyc_1', card_product_id: '', kyc_id: 'kyc_1', status: 'pending', level: 1 };

export const quickKyc = {
  reused: false,
  remaining: 4,
  binding: {
    id: '6f1c',
    identity_type: 'passport',
    identity_issue_country: '',
    nationality: 'SG',
    address_country: 'SG',
    created_at: '2026-01-02T03:04:05Z',
  },
};

export const conversion = {
  id: 'mcv_1',
  from_asset: 'USDT',
  to_asset: 'USDC',
  from_amount: '100',
  to_amount: '99.9',
  rate: '0.999',
  fee_asset: 'USDT',
  fee_amount: '0.1',
  ledger_scale_from: 6,
  ledger_scale_to: 6,
  created_at: '2026-01-02T03:04:05.123Z',
};

export const topup = { id: '9d0b', asset: 'USDT', channel: 'fiat', amount_text: '1000.50', status: 'pending' };

export const slippage = {
  kind: 'slippage',
  moved_bps: 120,
  slippage_bps: 100,
  old_total: '100.00',
  new_total: '101.20',
  extra_charge: '1.20',
  extra_locked: '1.50',
  available: '20.00',
  can_accept: true,
  reject_reason: '',
  deadline: '2026-01-02T07:04:05Z',
};

export const supplement = {
  kind: 'supplement',
  round: 1,
  status: 'PENDING',
  source: 'upstream',
  message: 'Please upload an invoice',
  items: [{ field_key: 'invoice', label: 'Invoice', type: 'file', required: true, submitted: false }],
  submit_url: 'https://upload.example/abc',
  created_at: '2026-01-02T03:04:05Z',
  submitted_at: '',
  deadline: null,
};

export const closeCheck = {
  balance: '12345',
  held: '100',
  authHeld: '100',
  withdrawable: '12245',
  canClose: false,
  pendingWithdraw: false,
  closeRequested: false,
  closePhase: 'blocked_hold',
  scale: 2,
  currency: 'USD',
};

export const report = {
  id: 'rep_2',
  kind: 'statements',
  status: 'ready',
  rows: 10,
  bytes: 2048,
  error: '',
  expires_at: '2026-01-09T00:00:00Z',
  created_at: '2026-01-02T00:00:00Z',
};

export const corridor = { country: 'GB', currency: 'GBP', payment_method: 'bank', clearing_systems: ['FASTER PAYMENTS'] };

export const bank = {
  swift_code: 'DEUTDEFF',
  bank_name: 'Deutsche Bank',
  address: null,
  city: 'Frankfurt',
  country_code: 'DE',
  branch: '',
};

export const agreement = { agreement: { lang: 'en', title: 'Agreement', body: 'Text' }, intro: null };

export const faucet = { ok: true, asset: 'USDT', credited: '10000', ledger_scale: 6, journal_id: 'jrn_1' };

export const token = { auth_token: 'tok', expired_at: 1_900_000_000, token_type: 'Bearer', scopes: ['balances:read'] };
