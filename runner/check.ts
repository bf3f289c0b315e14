// `replay-push check` (docs/runner.md, "Pairing a Mac"): one signed `{"kind":"check","host":H}` to the ingest
// endpoint, which verifies the signature and the host's listing and stores nothing (docs/contract.md §3). It
// answers the pairing question (is the key in AWS this host's key, is the host a sender of the space?)
// without leaving a run behind, and says what to fix in one sentence.
import { randomUUID } from 'node:crypto';
import { postSigned } from './push.ts';
import { CHECK_KIND } from '#schema/delivery.ts';
import { hostKey, KeyFileError, type KeySettings } from './host-key.ts';

export interface CheckOutcome {
  /** 0 verified; 2 no usable key here; 3 refused (the pairing is wrong); 1 the endpoint could not say. */
  exitCode: 0 | 1 | 2 | 3;
  line: string;
}

export async function checkPairing(endpoint: string, host: string, settings: KeySettings): Promise<CheckOutcome> {
  let found;
  try {
    found = await hostKey(host, settings);
  } catch (error) {
    if (error instanceof KeyFileError) return { exitCode: 2, line: `not checked: ${error.message}` };
    throw error;
  }
  if (!found.key)
    return { exitCode: 2, line: `not checked: host "${host}" has no key here (looked in ${found.source}).` };
  const body = Buffer.from(JSON.stringify({ kind: CHECK_KIND, host }));
  let answer;
  try {
    answer = await postSigned(endpoint, body, found.key, randomUUID());
  } catch (error) {
    return { exitCode: 1, line: `not checked: ${endpoint} did not answer (${(error as Error).message}).` };
  }
  const message = typeof answer.body.message === 'string' ? ` ${answer.body.message}` : '';
  if (answer.status === 200 && answer.body.signature === 'verified' && answer.body.host === host)
    return { exitCode: 0, line: `paired: ${endpoint} verified host "${host}"'s signature; nothing was stored.` };
  if (answer.status === 401 && answer.body.error === 'stale')
    return {
      exitCode: 3,
      line: `clock off: ${endpoint} refused the check's timestamp; set this host's clock (network time) and check again.${message}`,
    };
  switch (answer.status) {
    case 401:
      return {
        exitCode: 3,
        line:
          `not paired: no key the endpoint holds verifies host "${host}"'s signature. Put the ` +
          `key of ${found.source} in the host's secret; a new key verifies within five minutes.${message}`,
      };
    case 403:
      return answer.body.error === 'key-of-another-space'
        ? {
            exitCode: 3,
            line: `paired for another space: this key is host "${host}"'s for another space; sign with the key this space keeps for it (--key-file).${message}`,
          }
        : {
            exitCode: 3,
            line: `paired but not listed: host "${host}" is not a sender of this space; add it to the space's "senders" and deploy.${message}`,
          };
    case 404:
      return { exitCode: 3, line: `no such space at ${endpoint}: check the space in the URL.${message}` };
    default:
      return {
        exitCode: answer.status >= 500 || answer.status === 429 ? 1 : 3,
        line: `not checked: ${endpoint} answered ${answer.status}.${message}`,
      };
  }
}
