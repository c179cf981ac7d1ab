/**
 * What the admin API and the inspector show: request log entries with secrets redacted, members
 * with their balances. The api key and the bearer token travel in headers; they are replaced, so
 * no admin answer or page carries a secret (the signing key never reaches the log at all).
 */
import type { Sandbox } from '../sandbox-types.js';
import type { RecordedRequest } from '../service-deps.js';
import type { BalanceSnapshot, SandboxMember } from '../state-members.js';

/** What the admin API reads beyond the public `Sandbox`. */
export interface AdminHost {
  readonly sandbox: Sandbox;
  /** Assets the member has a balance row for, in creation order. */
  memberAssets(ref: string): string[];
  /** `sandbox.reset()` followed by the sandbox's own seed. */
  reset(): void;
}

const SECRET_HEADERS = new Set(['x-api-key', 'x-auth-token', 'authorization']);

/** A request log entry as admin answers show it. */
export interface RequestView extends Omit<RecordedRequest, 'headers'> {
  headers: Record<string, string>;
  member: string | null;
  idempotencyKey: string | null;
}

/** The entry with secret headers redacted, and its member and idempotency key pulled out. */
export function requestView(r: RecordedRequest): RequestView {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, SECRET_HEADERS.has(k) ? '[redacted]' : v]));
  return {
    ...r,
    headers,
    member: r.headers['x-on-behalf-of'] ?? null,
    idempotencyKey: r.headers['x-idempotency-key'] ?? null,
  };
}

/** The log, newest first. */
export function requestsNewestFirst(sandbox: Sandbox): RequestView[] {
  return [...sandbox.requests].reverse().map(requestView);
}

/** A member with every balance row it has. */
export interface MemberView extends SandboxMember {
  balances: BalanceSnapshot[];
}

/** One member and its balances. */
export function memberView(host: AdminHost, m: SandboxMember): MemberView {
  return { ...m, balances: host.memberAssets(m.id).map((a) => host.sandbox.state.balance(m.id, a)) };
}

/** Every member, in creation order. */
export function membersView(host: AdminHost): MemberView[] {
  return host.sandbox.state.members.map((m) => memberView(host, m));
}
