// The outputs file `npm run deploy` writes (cdk's `--outputs-file`, `{stack: {output: value}}`), plus the one
// entry the deploy adds, `IngestUrls`: each space's ingest URL, filled in from the one IngestUrlTemplate
// output (CloudFormation allows 200 outputs, fewer than a deployment's spaces). Local mode writes a file of
// the same shape (`<data dir>/outputs.json`), so `npm run smoke` reads either.
import { readFileSync } from 'node:fs';
import { OperatorError } from './operator-command.ts';

export type OutputsFile = Record<string, Record<string, string>>;

export const INGEST_URLS = 'IngestUrls';
const TEMPLATE = 'IngestUrlTemplate';
const COCKPIT_URL = /^CockpitUrl/;

export function readOutputs(path: string): OutputsFile {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as OutputsFile;
  } catch {
    throw new OperatorError(`Cannot read the deployment's outputs from ${path} (npm run deploy writes them).`);
  }
}

/** The value of an output, whichever stack holds it; undefined when none does. */
export const outputOf = (outputs: OutputsFile, name: string): string | undefined =>
  Object.entries(outputs).find(([stack, values]) => stack !== INGEST_URLS && values[name] !== undefined)?.[1][name];

/** Each space's ingest URL from the template output. */
export function ingestUrls(template: string, spaces: string[]): Record<string, string> {
  return Object.fromEntries(spaces.map((space) => [space, template.replace('{space}', encodeURIComponent(space))]));
}

/** The outputs with `IngestUrls` added for these spaces. */
export function withIngestUrls(outputs: OutputsFile, spaces: string[]): OutputsFile {
  const template = outputOf(outputs, TEMPLATE);
  if (!template) throw new OperatorError(`The outputs name no ${TEMPLATE}: did the deploy finish?`);
  return { ...outputs, [INGEST_URLS]: ingestUrls(template, spaces) };
}

/** Every cockpit's URL, by output name. */
export const cockpitUrls = (outputs: OutputsFile): [string, string][] =>
  Object.entries(outputs)
    .filter(([stack]) => stack !== INGEST_URLS)
    .flatMap(([, values]) => Object.entries(values).filter(([name]) => COCKPIT_URL.test(name)));

export const ingestTemplateOf = (outputs: OutputsFile): string => {
  const template = outputOf(outputs, TEMPLATE);
  if (!template) throw new OperatorError(`The outputs name no ${TEMPLATE}.`);
  return template;
};
