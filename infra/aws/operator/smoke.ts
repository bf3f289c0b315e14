// `npm run smoke -- <outputs file> --host H --key-file F`: after a deploy (or against local mode, whose
// outputs file has the same shape), the few requests that say the deployment answers as the contract says,
// none of which stores anything: a bad signature is refused (401), an unknown space is unknown (404), a
// signed check by a paired host is verified (200), each cockpit's settings load, and a cockpit that
// requires sign-in refuses its API without a token (401).
import { randomUUID } from 'node:crypto';
import { postSigned } from '../../../shared/runner/push.ts';
import { COCKPIT_SETTINGS_FILE, type CockpitSettings } from '../../../shared/cockpit/contract.ts';
import { CHECK_KIND } from '../../../shared/schema/delivery.ts';
import { cockpitUrls, ingestTemplateOf, INGEST_URLS, type OutputsFile } from './outputs.ts';
import { OperatorError } from './operator-command.ts';

export interface SmokeOptions {
  /** The space to send to; default: the first in the outputs' IngestUrls. */
  space?: string;
  host: string;
  key: string;
}

export interface SmokeResult {
  name: string;
  ok: boolean;
  detail: string;
}

const bodyOf = (answer: { body: Record<string, unknown> }) => JSON.stringify(answer.body).slice(0, 200);

export async function smoke(outputs: OutputsFile, options: SmokeOptions): Promise<SmokeResult[]> {
  const template = ingestTemplateOf(outputs);
  const space = options.space ?? Object.keys(outputs[INGEST_URLS] ?? {})[0];
  if (!space) throw new OperatorError('Which space? Give --space, or an outputs file with IngestUrls.');
  const ingest = template.replace('{space}', encodeURIComponent(space));
  const check = Buffer.from(JSON.stringify({ kind: CHECK_KIND, host: options.host }));
  const results: SmokeResult[] = [];
  const expect = (name: string, ok: boolean, detail: string) => results.push({ name, ok, detail });

  const forged = await postSigned(ingest, check, `not-the-key-${randomUUID()}`, randomUUID());
  expect('a bad signature is refused with 401', forged.status === 401, `${forged.status} ${bodyOf(forged)}`);

  const nowhere = template.replace('{space}', `replay-smoke-no-such-space-${randomUUID().slice(0, 8)}`);
  const unknown = await postSigned(nowhere, check, options.key, randomUUID());
  expect('an unknown space answers 404', unknown.status === 404, `${unknown.status} ${bodyOf(unknown)}`);

  const verified = await postSigned(ingest, check, options.key, randomUUID());
  expect(
    `a check signed by ${options.host} is verified with 200, storing nothing`,
    verified.status === 200 && verified.body.signature === 'verified' && verified.body.host === options.host,
    `${verified.status} ${bodyOf(verified)}`,
  );

  const cockpits = cockpitUrls(outputs);
  if (!cockpits.length) expect('the deployment has cockpits', false, 'no CockpitUrl output');
  for (const [output, url] of cockpits) {
    const base = url.endsWith('/') ? url : `${url}/`;
    const response = await fetch(`${base}${COCKPIT_SETTINGS_FILE}`);
    let settings: CockpitSettings | undefined;
    try {
      settings = (await response.json()) as CockpitSettings;
    } catch {
      // not JSON: reported below
    }
    const loads = response.ok && Array.isArray(settings?.cockpits) && settings.cockpits.length > 0;
    expect(`${output}: ${COCKPIT_SETTINGS_FILE} loads`, loads, `${response.status}`);
    if (!loads || !settings?.signIn) continue;
    // Only a cockpit that requires sign-in has a token to refuse (local mode has none).
    const cockpitSpace = settings.cockpits[0]!.space;
    const api = await fetch(
      `${base}${settings.api.replace(/^\//, '')}/spaces/${encodeURIComponent(cockpitSpace)}/runs`,
    );
    await api.body?.cancel();
    expect(`${output}: the API refuses a request without a token with 401`, api.status === 401, `${api.status}`);
  }
  return results;
}

/** The report printed: one line per check, then the verdict. */
export function report(results: SmokeResult[]): { lines: string[]; ok: boolean } {
  const ok = results.every((r) => r.ok);
  return {
    ok,
    lines: [
      ...results.map((r) => `${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.ok ? '' : ` (got ${r.detail})`}`),
      ok
        ? `smoke: all ${results.length} checks passed`
        : `smoke: ${results.filter((r) => !r.ok).length} of ${results.length} checks failed`,
    ],
  };
}
