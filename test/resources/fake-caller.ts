/** A recording `EndpointCaller` that answers every call with a canned body, never touching HTTP. */
import { ApiPromiseImpl } from '../../src/core/pipeline/api-promise.js';
import { toLoosePage } from '../../src/core/lists/loose-page.js';
import { PageIterator } from '../../src/core/lists/pagination.js';
import type { ApiPromise, CallArgs, EndpointCaller, ListArgs, LoosePage, Page, PagePromise } from '../../src/core/types.js';
import {
  Assets,
  MemberView,
  MerchantAccount,
  MerchantRemittances,
  Members,
  Reports,
  SandboxFaucet,
  Withdrawals,
} from '../../src/resources/index.js';
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import type { Root } from './samples.js';

export interface RecordedCall {
  readonly endpoint: EndpointDescriptor;
  readonly args: CallArgs;
  readonly kind: 'call' | 'list';
}

const FAKE_RESPONSE = { requestId: 'req_fake', status: 200, headers: {}, idempotencyKey: undefined, replayed: false, attempts: 1 };

export class FakeCaller implements EndpointCaller {
  readonly calls: RecordedCall[] = [];
  reply: unknown = {};

  call<T>(endpoint: EndpointDescriptor<T>, args: CallArgs = {}): ApiPromise<T> {
    this.calls.push({ endpoint: endpoint, args, kind: 'call' });
    const data = endpoint.response.parse(this.reply);
    return new ApiPromiseImpl(
      Promise.resolve({
        data,
        response: { requestId: 'req_fake', status: 200, headers: {}, idempotencyKey: undefined, replayed: false, attempts: 1 },
      }),
    );
  }

  list<T>(endpoint: EndpointDescriptor<Page<T>>, args: ListArgs<T>): PagePromise<T> {
    this.calls.push({ endpoint: endpoint, args, kind: 'list' });
    return new PageIterator<T>(async () => ({ data: endpoint.response.parse(this.reply), response: FAKE_RESPONSE }));
  }

  looseList<T>(endpoint: EndpointDescriptor<unknown>, args: ListArgs<T>): PagePromise<T, LoosePage<T>> {
    this.calls.push({ endpoint: endpoint, args, kind: 'list' });
    return new PageIterator<T, LoosePage<T>>(async () => ({
      data: toLoosePage<T>(endpoint.response.parse(this.reply)),
      response: FAKE_RESPONSE,
    }));
  }
}

/** The client's namespaces over a fake caller. */
export function fakeRoot(api: EndpointCaller): Root {
  return {
    merchant: new MerchantAccount(api),
    reports: new Reports(api),
    remittances: new MerchantRemittances(api),
    assets: new Assets(api),
    members: new Members(api),
    sandbox: new SandboxFaucet(api),
    withdrawals: new Withdrawals(api),
    member: (id: string) => new MemberView(api, id),
  };
}
