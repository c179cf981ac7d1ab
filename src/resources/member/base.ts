import type { ApiPromise, CallArgs, EndpointCaller, ListArgs, Page, PagePromise } from '../../core/types.js';
import type { EndpointDescriptor } from '../../spec/endpoint.js';

/** Common base of the member view's namespaces: every call carries the member. */
export abstract class MemberResource {
  /** The pipeline. */
  protected readonly api: EndpointCaller;
  /** The member, sent as `x-on-behalf-of` (validated by the member view). */
  protected readonly memberId: string;

  /**
   * @param api - The pipeline.
   * @param memberId - A member identifier already validated by the member view.
   */
  constructor(api: EndpointCaller, memberId: string) {
    this.api = api;
    this.memberId = memberId;
  }

  /** One call of a member-scoped endpoint on behalf of this member. */
  protected send<T>(endpoint: EndpointDescriptor<T>, args: Omit<CallArgs, 'member'> = {}): ApiPromise<T> {
    return this.api.call(endpoint, { ...args, member: this.memberId });
  }

  /** A list call of a member-scoped endpoint on behalf of this member. */
  protected page<T>(endpoint: EndpointDescriptor<Page<T>>, args: Omit<ListArgs<T>, 'member'> = {}): PagePromise<T> {
    return this.api.list(endpoint, { ...args, member: this.memberId });
  }
}
