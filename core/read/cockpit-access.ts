// Per-cockpit access (docs/contract.md §6). One user pool signs analysts in for every private cockpit, so a valid token
// alone says only "an analyst of this deployment". Each private cockpit has its own Cognito group, and its
// read API answers only tokens that carry that group: inviting someone to one cockpit opens no other.
import { jsonError, type HttpAnswer } from '../http.ts';
import { sha256Hex } from '#shared/sha256.ts';

/** Cognito's limit on a group name. */
export const MAX_GROUP_NAME_LENGTH = 128;
const PREFIX = 'cockpit-';

/**
 * `cockpit-<name>`; a name too long for Cognito (cockpit names may have 200 characters) keeps its start
 * and ends with a hash of the whole name, so two long names never share a group.
 */
export function analystGroupOf(cockpit: string): string {
  const plain = `${PREFIX}${cockpit}`;
  if (plain.length <= MAX_GROUP_NAME_LENGTH) return plain;
  const hash = sha256Hex(cockpit).slice(0, 16);
  return `${PREFIX}${Array.from(cockpit)
    .slice(0, MAX_GROUP_NAME_LENGTH - PREFIX.length - hash.length - 1)
    .join('')}-${hash}`;
}

/** The 403 answer for a token without the cockpit's group; null when the request may be read. */
export function groupRefusal(requiredGroup: string, tokenGroups: readonly string[]): HttpAnswer | null {
  if (tokenGroups.includes(requiredGroup)) return null;
  return jsonError(
    403,
    'not-in-cockpit-group',
    `This account is not a member of ${requiredGroup}, the group that may read this cockpit; an operator adds it (docs/deploy.md).`,
  );
}
