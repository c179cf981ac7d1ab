/**
 * The pipeline bound to one member. Member namespaces hold one (composition, not a base class),
 * so the pipeline and the member id stay private to them and out of the public types.
 */
import type { ApiPromise, CallArgs, EndpointCaller, ListArgs, LoosePage, PagePromise } from '../../core/types.js';
import type { EndpointDescriptor } from '../../facts/endpoint.js';

/** Calls of member-scoped endpoints, each sent with `x-on-behalf-of` for the bound member. */
export interface MemberCaller {
  /** One call of a member-scoped endpoint on behalf of the member. */
  call<T>(endpoint: EndpointDescriptor<T>, args?: Omit<CallArgs, 'member'>): ApiPromise<T>;
  /** A list call, of a shape the spec does not show, on behalf of the member. */
  looseList<T>(endpoint: EndpointDescriptor<unknown>, args: Omit<ListArgs<T>, 'member'>): PagePromise<T, LoosePage<T>>;
}

/** Binds the pipeline to a member identifier already validated by the member view. */
export function bindMember(api: EndpointCaller, memberId: string): MemberCaller {
  return {
    call: (endpoint, args = {}) => api.call(endpoint, { ...args, member: memberId }),
    looseList: (endpoint, args) => api.looseList(endpoint, { ...args, member: memberId }),
  };
}
