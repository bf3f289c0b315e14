// Local mode's outputs file (`<data dir>/outputs.json`), in the shape `npm run deploy` writes for AWS, so the
// smoke test and the operator's scripts read local mode like a deployment: the ingest URL template, each
// space's ingest URL, and the page that serves every cockpit.
import type { ReplayConfig } from '#schema/config.ts';
import { INGEST_URLS, ingestUrls, type OutputsFile } from '../aws/operator/outputs.ts';

export const LOCAL_OUTPUTS_FILE = 'outputs.json';

export function localOutputs(url: string, config: ReplayConfig): OutputsFile {
  const template = `${url}/hooks/{space}/ingest`;
  return {
    'ReplayBench-Local': {
      IngestUrlTemplate: template,
      ...Object.fromEntries(
        Object.keys(config.cockpits).map((name) => [`CockpitUrl${name.replace(/[^A-Za-z0-9]/g, '')}`, `${url}/`]),
      ),
    },
    [INGEST_URLS]: ingestUrls(template, Object.keys(config.spaces)),
  };
}
