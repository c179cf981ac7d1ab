import type { EndpointCaller } from '../core/types.js';
import { checkMemberId } from '../core/call/member-id.js';
import { bindMember, type MemberCaller } from './member/member-caller.js';
import { MemberBalances } from './member/balances.js';
import { MemberCards } from './member/cards.js';
import { MemberDeposits } from './member/deposits.js';
import { MemberExchange } from './member/exchange.js';
import { MemberKyc } from './member/kyc.js';
import { MemberQrpay } from './member/qrpay.js';
import { MemberRemittances } from './member/remittances.js';
import { MemberShippingAddresses } from './member/shipping-addresses.js';
import { MemberWithdrawals } from './member/withdrawals.js';

/**
 * One member's view of the API: every member-scoped endpoint is reachable only through it, and
 * every call it makes sends `x-on-behalf-of: <memberId>`. Forgetting the member is a compile
 * error, not a 400 `member_context_required` in production.
 *
 * Obtain it with `client.member(id)`. Cheap to create: namespaces are built on first use, so `client.member(id).x.y()` on a hot path
 * allocates only what it touches.
 */
export class MemberView {
  /** The member identifier sent as `x-on-behalf-of` (exactly as given). */
  readonly memberId: string;
  readonly #api: MemberCaller;
  #balances: MemberBalances | undefined;
  #withdrawals: MemberWithdrawals | undefined;
  #qrpay: MemberQrpay | undefined;
  #kyc: MemberKyc | undefined;
  #cards: MemberCards | undefined;
  #remittances: MemberRemittances | undefined;
  #shippingAddresses: MemberShippingAddresses | undefined;
  #exchange: MemberExchange | undefined;
  #deposits: MemberDeposits | undefined;

  /**
   * Built by `client.member(id)`, which documents the checks of `memberId`.
   *
   * @internal
   * @param api - The pipeline.
   * @param memberId - The merchant's `external_member_id` or the service's `mem_<uuid>`.
   * @throws InvalidArgumentError when the id is not a string, is blank after trimming (the
   * service has no default member), or contains control characters such as CR or LF (they would
   * inject headers) or characters a header cannot carry. Nothing is sent.
   */
  constructor(api: EndpointCaller, memberId: string) {
    this.memberId = checkMemberId(memberId, 'memberId');
    this.#api = bindMember(api, this.memberId);
  }

  /** Balances per asset. */
  get balances(): MemberBalances {
    return (this.#balances ??= new MemberBalances(this.#api));
  }

  /** Withdrawal debit, confirm, fail and the address book. */
  get withdrawals(): MemberWithdrawals {
    return (this.#withdrawals ??= new MemberWithdrawals(this.#api));
  }

  /** QR-code payments: schemes, decode, quote, pay. */
  get qrpay(): MemberQrpay {
    return (this.#qrpay ??= new MemberQrpay(this.#api));
  }

  /** KYC: L1 application, quick KYC binding, status, sessions. */
  get kyc(): MemberKyc {
    return (this.#kyc ??= new MemberKyc(this.#api));
  }

  /** Cards: products, applications, activation, limits, closure, top-ups. */
  get cards(): MemberCards {
    return (this.#cards ??= new MemberCards(this.#api));
  }

  /** Remittances: quotes, payees, orders, pending actions, cancel, personal-line account. */
  get remittances(): MemberRemittances {
    return (this.#remittances ??= new MemberRemittances(this.#api));
  }

  /** Shipping addresses. */
  get shippingAddresses(): MemberShippingAddresses {
    return (this.#shippingAddresses ??= new MemberShippingAddresses(this.#api));
  }

  /** Internal exchange. */
  get exchange(): MemberExchange {
    return (this.#exchange ??= new MemberExchange(this.#api));
  }

  /** Deposit declarations. */
  get deposits(): MemberDeposits {
    return (this.#deposits ??= new MemberDeposits(this.#api));
  }
}
