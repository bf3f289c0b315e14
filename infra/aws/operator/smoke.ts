// `npm run smoke -- <outputs file> --host H --key-file F`: after a deploy (or against local mode, whose
// outputs file has the same shape), the few requests that say the deployment answers as the contract says,
// none of which stores anything: a bad signature is refused (401), an unknown space is unknown (404), a
// signed check by a paired host is verified (200), each cockpit's settings load, and a cockpit that
// requires sign-in refuses its API without a token (401).
import { randomUUID } from 'node:crypto';
import { postSigned } from '#runner/push.ts';
import { COCKPIT_SETTINGS_FILE, type CockpitSettings } from '#analytics/contract.ts';
import { CHECK_KIND } from '#schema/delivery.ts';
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

/** Why a request got no answer at all: fetch's own "fetch failed" says nothing, its cause names the reason. */
export function unreachableReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.message)
    return cause.code && !cause.message.includes(cause.code) ? `${cause.code} ${cause.message}` : cause.message;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export async function smoke(outputs: OutputsFile, options: SmokeOptions): Promise<SmokeResult[]> {
  const template = ingestTemplateOf(outputs);
  const space = options.space ?? Object.keys(outputs[INGEST_URLS] ?? {})[0];
  if (!space) throw new OperatorError('Which space? Give --space, or an outputs file with IngestUrls.');
  const ingest = template.replace('{space}', encodeURIComponent(space));
  const check = Buffer.from(JSON.stringify({ kind: CHECK_KIND, host: options.host }));
  const results: SmokeResult[] = [];
  const expect = (name: string, ok: boolean, detail: string) => results.push({ name, ok, detail });
  /** One check; a request that gets no answer fails it with the URL and the reason, and the others still run. */
  const attempt = async (name: string, url: string, run: () => Promise<[boolean, string]>): Promise<boolean> => {
    try {
      const [ok, detail] = await run();
      expect(name, ok, detail);
      return ok;
    } catch (e) {
      expect(name, false, `no answer from ${url}: ${unreachableReason(e)}`);
      return false;
    }
  };

  await attempt('a bad signature is refused with 401', ingest, async () => {
    const forged = await postSigned(ingest, check, `not-the-key-${randomUUID()}`, randomUUID());
    return [forged.status === 401, `${forged.status} ${bodyOf(forged)}`];
  });

  const nowhere = template.replace('{space}', `replay-smoke-no-such-space-${randomUUID().slice(0, 8)}`);
  await attempt('an unknown space answers 404', nowhere, async () => {
    const unknown = await postSigned(nowhere, check, options.key, randomUUID());
    return [unknown.status === 404, `${unknown.status} ${bodyOf(unknown)}`];
  });

  await attempt(`a check signed by ${options.host} is verified with 200, storing nothing`, ingest, async () => {
    const verified = await postSigned(ingest, check, options.key, randomUUID());
    return [
      verified.status === 200 && verified.body.signature === 'verified' && verified.body.host === options.host,
      `${verified.status} ${bodyOf(verified)}`,
    ];
  });

  const cockpits = cockpitUrls(outputs);
  if (!cockpits.length) expect('the deployment has cockpits', false, 'no CockpitUrl output');
  for (const [output, url] of cockpits) {
    const base = url.endsWith('/') ? url : `${url}/`;
    const settingsUrl = `${base}${COCKPIT_SETTINGS_FILE}`;
    let settings: CockpitSettings | undefined;
    const loads = await attempt(`${output}: ${COCKPIT_SETTINGS_FILE} loads`, settingsUrl, async () => {
      const response = await fetch(settingsUrl);
      try {
        settings = (await response.json()) as CockpitSettings;
      } catch {
        // not JSON: reported below
      }
      return [response.ok && Array.isArray(settings?.cockpits) && settings.cockpits.length > 0, `${response.status}`];
    });
    if (!loads || !settings?.signIn) continue;
    // Only a cockpit that requires sign-in has a token to refuse (local mode has none).
    const cockpitSpace = settings.cockpits[0]!.space;
    const apiUrl = `${base}${settings.api.replace(/^\//, '')}/spaces/${encodeURIComponent(cockpitSpace)}/runs`;
    await attempt(`${output}: the API refuses a request without a token with 401`, apiUrl, async () => {
      const api = await fetch(apiUrl);
      await api.body?.cancel();
      return [api.status === 401, `${api.status}`];
    });
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
