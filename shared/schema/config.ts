// The one configuration file (SPEC §10), read by local mode and by `cdk synth`. Strict: an unknown or
// wrong key fails with a sentence that names it.
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { pathSafeIdentity } from './primitives.ts';
import { describeIssues } from './issues-text.ts';
import { EXPORT_FIELDS, isExportField, type ExportField } from './export-fields.ts';

export const DEFAULT_SECRET_CONFIG_KEY = 'Hosting:ModuleReportSecret';
export const DEFAULT_JUDGE_MODEL = 'claude-sonnet-5-5';
/** The parsed configuration's file name beside each deployed function's code. */
export const BUNDLED_CONFIG_FILE = 'replay.config.json';

const judgeSettingsSchema = z.strictObject({
  model: z.string().min(1).optional(),
  dailyCap: z.number().int().nonnegative().default(200),
  maxAttempts: z.number().int().positive().default(6),
  retryBaseSeconds: z.number().positive().default(900),
});

const spaceSchema = z.strictObject({
  senders: z.array(pathSafeIdentity).min(1),
  secretConfigKey: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+)*$/, 'must be names joined by ":"')
    .default(DEFAULT_SECRET_CONFIG_KEY),
  judge: judgeSettingsSchema.default({ dailyCap: 200, maxAttempts: 6, retryBaseSeconds: 900 }),
  exports: z.strictObject({ fields: exportFieldsSchema() }).optional(),
});

/** A subset of the export allowlist, kept in the allowlist's order whatever order it is written in. */
function exportFieldsSchema() {
  return z
    .array(z.string())
    .min(1, 'must name at least one export field')
    .superRefine((names, ctx) => {
      const unknown = names.filter((n) => !isExportField(n));
      if (unknown.length) {
        ctx.addIssue({ code: 'custom', message: `names ${unknown.map((n) => `"${n}"`).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not among the exportable fields (${EXPORT_FIELDS.join(', ')})` });
      }
    })
    .transform((names) => EXPORT_FIELDS.filter((f) => names.includes(f)) as ExportField[]);
}

/** USD per million tokens of one model (SPEC §5): the judge's attempts and, for runner models, run estimates. */
const priceSchema = z.strictObject({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
  cacheReadPerMTok: z.number().nonnegative().optional(),
});
export type ModelPrice = z.output<typeof priceSchema>;

const cockpitSchema = z.strictObject({
  space: pathSafeIdentity,
  public: z.boolean().default(false),
});

export const configSchema = z
  .strictObject({
    defaultJudgeModel: z.string().min(1).default(DEFAULT_JUDGE_MODEL),
    spaces: z.record(pathSafeIdentity, spaceSchema).refine((s) => Object.keys(s).length > 0, 'must declare at least one space'),
    cockpits: z.record(pathSafeIdentity, cockpitSchema).default({}),
    /** Per model name; a model without a price has an unknown (null) cost, never 0. */
    prices: z.record(z.string().min(1), priceSchema).default({}),
    alarms: z.strictObject({ email: z.email().optional() }).default({}),
  })
  .superRefine((config, ctx) => {
    for (const [name, cockpit] of Object.entries(config.cockpits)) {
      if (!config.spaces[cockpit.space]) {
        ctx.addIssue({ code: 'custom', path: ['cockpits', name, 'space'], message: `names unknown space "${cockpit.space}"` });
      }
    }
  });

export type ReplayConfig = z.output<typeof configSchema>;
export type SpaceConfig = ReplayConfig['spaces'][string];

export class ConfigError extends Error {}

/** The export fields of a space: its `exports.fields`, else the whole allowlist. */
export const exportFieldsOf = (config: ReplayConfig, space: string): readonly ExportField[] => config.spaces[space]?.exports?.fields ?? EXPORT_FIELDS;

export function parseConfig(input: unknown, source = 'configuration'): ReplayConfig {
  const result = configSchema.safeParse(input);
  if (!result.success) throw new ConfigError(`Invalid ${source}: ${describeIssues(result.error.issues).join('; ')}.`);
  return result.data;
}

export function readConfigFile(path: string): ReplayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError(`Cannot read the configuration file ${path}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`The configuration file ${path} is not valid JSON: ${(e as Error).message}.`);
  }
  return parseConfig(json, `configuration file ${path}`);
}

/** The judge model a space uses: its own, else the deployment default. */
export const judgeModelOf = (config: ReplayConfig, space: string): string =>
  config.spaces[space]?.judge.model ?? config.defaultJudgeModel;

/** Every (secretConfigKey, host) pair whose key is a signature candidate, deduplicated. */
export function keyCandidates(config: ReplayConfig): { secretConfigKey: string; host: string }[] {
  const seen = new Map<string, { secretConfigKey: string; host: string }>();
  for (const space of Object.values(config.spaces)) {
    for (const host of space.senders) seen.set(`${space.secretConfigKey}:${host}`, { secretConfigKey: space.secretConfigKey, host });
  }
  return [...seen.values()];
}
