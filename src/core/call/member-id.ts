/**
 * The member identifier check, written once for the member view (`client.member(id)`) and the
 * pipeline (`client.request({ onBehalfOf })`): the identifier travels in the `x-on-behalf-of`
 * header, so it is checked before anything is sent.
 */
import { InvalidArgumentError } from '../errors/errors.js';
import { hasControlChars } from '../text.js';

/**
 * Validates a member identifier for `x-on-behalf-of` and returns it exactly as given.
 *
 * @param member - The merchant's `external_member_id` or the service's `mem_<uuid>`.
 * @param argumentName - The argument named in the error (`memberId`, `member`).
 * @throws InvalidArgumentError when `member` is not a string, is blank after trimming (the
 * service has no default member), contains control characters such as CR or LF (they would
 * inject headers), or characters outside Latin-1 (a header cannot carry them).
 */
export function checkMemberId(member: unknown, argumentName: string): string {
  if (typeof member !== 'string' || member.trim() === '') {
    throw new InvalidArgumentError(
      argumentName,
      'must be a non-blank external_member_id or mem_<uuid> (the service has no default member).',
    );
  }
  if (hasControlChars(member)) {
    throw new InvalidArgumentError(argumentName, 'must not contain control characters such as CR or LF (they would inject headers).');
  }
  if (/[^\u0020-\u00ff]/.test(member)) throw new InvalidArgumentError(argumentName, 'must be Latin-1 text to travel in a header.');
  return member;
}
