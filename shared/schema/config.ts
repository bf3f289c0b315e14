// The one configuration file (docs/contract.md §10), read by local mode and by `cdk synth`. Strict: an unknown or
// wrong key fails with a sentence that names it.
import { readFileSync } from 'node:fs';
import * as z from './zod.ts';
import { amount, count, mapped, nonEmptyText, pathSafeIdentity, positiveCount, repoName } from './primitives.ts';
import { describeIssues } from './issues-text.ts';
import { DEFAULT_EXPORT_FIELDS, EXPORT_FIELDS, isExportField, type ExportField } from './export-fields.ts';
import { DEFAULT_MIN_N } from './defaults.ts';
import { readAsLatin } from '../look-alikes.ts';

export const DEFAULT_SECRET_CONFIG_KEY = 'Hosting:ModuleReportSecret';
export const DEFAULT_JUDGE_MODEL = 'claude-sonnet-5-5';
/** Five minutes, as Standard Webhooks recommends: a captured delivery replays for no longer. */
export const DEFAULT_TIMESTAMP_TOLERANCE_SECONDS = 300;
/** The parsed configuration's file name beside each deployed function's code. */
export const BUNDLED_CONFIG_FILE = 'replay.config.json';

const judgeSettingsSchema = z.strictObject({
  model: z.optional(nonEmptyText),
  dailyCap: z._default(count, 200),
  maxAttempts: z._default(positiveCount, 6),
  retryBaseSeconds: z._default(z.number().check(z.positive()), 900),
  /** The largest part of the space's daily calls one host's runs may take (0 < share ≤ 1). */
  hostShare: z._default(z.number().check(z.positive(), z.lte(1)), 0.5),
  /**
   * `live`: one Messages call per attempt, answered while the judge waits. `batch`: the sweep's due runs go to the
   * provider as one Message Batch, half the token price, collected by a later sweep (docs/contract.md §5).
   */
  mode: z._default(z.enum(['live', 'batch']), 'live'),
});

// `:` joins a key name's parts and `__` is how `:` is spelled in environment and file names, so a host
// containing either could share its key name with another host or with a fleet-wide value. A host's key is
// the Secrets Manager secret `{secretConfigKey}/{host}` in AWS, and Secrets Manager names take only these
// characters: a host it would refuse must fail here, not halfway through a deploy.
const hostName = pathSafeIdentity.check(
  z.refine(
    (s) => !s.includes(':') && !s.includes('__'),
    'must not contain ":" or "__" (they separate the parts of a key name)',
  ),
  z.regex(
    /^[A-Za-z0-9_+=.@-]+$/,
    'may hold only letters, digits and _ + = . @ - (its key is a Secrets Manager secret named after it)',
  ),
);

// `#` separates the parts of a table key (`HOSTRUNS#{space}#{host}`), so a space named with it could read as
// another space's key, and a read API's grant on its own space's keys could cover another's.
const spaceName = pathSafeIdentity.check(
  z.refine((s) => !s.includes('#'), 'must not contain "#" (it separates the parts of a table key)'),
);

/** A date as `YYYY-MM-DD`, a real day of the calendar. */
const calendarDay = z.iso.date({ error: 'must be a day of the calendar written YYYY-MM-DD' });

const spaceSchema = z.strictObject({
  senders: z.array(hostName).check(z.minLength(1)),
  secretConfigKey: z._default(
    z.string().check(z.regex(/^[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+)*$/, 'must be names joined by ":"')),
    DEFAULT_SECRET_CONFIG_KEY,
  ),
  /** Host keys shorter than this many UTF-8 bytes do not verify this space's deliveries; absent = any length. */
  minKeyBytes: z.optional(positiveCount),
  /** How far a v2 signature's timestamp may lie from the ingest's clock, either way, before it is refused as stale. */
  timestampToleranceSeconds: z._default(positiveCount, DEFAULT_TIMESTAMP_TOLERANCE_SECONDS),
  /** The last day (UTC) this space verifies version 1 signatures (the body alone); absent = never. */
  acceptV1Until: z.optional(calendarDay),
  /** Repositories whose issue records the space accepts and the judge may fetch; absent = any, [] = none. */
  repos: z.optional(z.array(repoName)),
  /** Senders that may publish issue records; absent = every sender (the first to publish a task owns it). */
  issuePublishers: z.optional(z.array(hostName)),
  /**
   * Models pinned to the senders that may own their runs (docs/contract.md §4); a model not named: any sender.
   * Names in NFC, as a delivered model is read.
   */
  hostsByModel: z.optional(
    mapped(z.record(z.string(), z.array(hostName).check(z.minLength(1))), (pins) =>
      Object.fromEntries(Object.entries(pins).map(([model, hosts]) => [model.normalize('NFC'), hosts])),
    ),
  ),
  judge: z._default(judgeSettingsSchema, {
    dailyCap: 200,
    maxAttempts: 6,
    retryBaseSeconds: 900,
    hostShare: 0.5,
    mode: 'live',
  }),
  exports: z.optional(z.strictObject({ fields: exportFieldsSchema() })),
});

/** A subset of the export allowlist, kept in the allowlist's order whatever order it is written in. */
function exportFieldsSchema() {
  const names = z.array(z.string()).check(
    z.minLength(1, 'must name at least one export field'),
    z.superRefine((names, ctx) => {
      const unknown = names.filter((n) => !isExportField(n));
      if (unknown.length) {
        ctx.addIssue({
          code: 'custom',
          message:
            `names ${unknown.map((n) => `"${n}"`).join(', ')}, which ` +
            `${unknown.length === 1 ? 'is' : 'are'} not among the exportable fields (${EXPORT_FIELDS.join(', ')})`,
        });
      }
    }),
  );
  return mapped(names, (listed) => EXPORT_FIELDS.filter((f) => listed.includes(f)) as ExportField[]);
}

/** USD per million tokens of one model (docs/contract.md §5): the judge's attempts and, for runner models, run estimates. */
const priceSchema = z.strictObject({
  inputPerMTok: amount,
  outputPerMTok: amount,
  cacheWritePerMTok: z.optional(amount),
  cacheReadPerMTok: z.optional(amount),
});
export type ModelPrice = z.output<typeof priceSchema>;

/**
 * What the campaign a cockpit shows is a sample of (docs/contract.md §6): the task population it was drawn from,
 * by name and size, and in a sentence how its tasks were chosen. The cockpit writes "n of N tasks" beside every
 * headline rate, and the sentence to quote names them.
 */
const campaignSchema = z.strictObject({
  population: z.strictObject({ name: nonEmptyText, size: positiveCount }),
  sample: z.optional(nonEmptyText),
});

/**
 * `showReference`: whether the cockpit shows the original (merged) fix beside each run. A fix may come from
 * a private repository, so a public cockpit shows it only when told to; a private one does by default.
 */
const cockpitSchema = mapped(
  z.strictObject({
    space: pathSafeIdentity,
    public: z._default(z.boolean(), false),
    showReference: z.optional(z.boolean()),
    /** Below this n on the outcome, a configuration's rate is shown but not ranked (docs/contract.md §6). */
    minN: z._default(
      z.int({ error: 'must be a whole number of runs, 1 or more' }).check(z.positive('must be 1 or more')),
      DEFAULT_MIN_N,
    ),
    campaign: z.optional(campaignSchema),
  }),
  (cockpit) => ({ ...cockpit, showReference: cockpit.showReference ?? !cockpit.public }),
);

// A DNS name of lower-case labels, as ACM and Route 53 take it.
const dnsName = z
  .string()
  .check(
    z.regex(
      /^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
      'must be a lower-case DNS name such as "bench.example.com"',
    ),
  );

/**
 * Stable names for the deployment (docs/deploy.md, "Stable endpoints"): ingest at `ingest.{name}`, each
 * cockpit at `{cockpit}.{name}`. CloudFront takes certificates from us-east-1 only, so the cockpits' is
 * named here; the ingest endpoint's is named too, or made and validated in the hosted zone.
 */
const domainSchema = z.strictObject({
  name: dnsName,
  /** The Route 53 hosted zone holding `name`: its records are made, and the ingest certificate validated, there. */
  hostedZoneId: z.optional(z.string().check(z.regex(/^Z[A-Z0-9]{1,32}$/, 'must be a Route 53 hosted zone id'))),
  /** A certificate in the deployment's region for `ingest.{name}`. */
  ingestCertificateArn: z.optional(
    z
      .string()
      .check(z.regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/\S+$/, 'must be an ACM certificate ARN')),
  ),
  /** A certificate in us-east-1 for every cockpit's name (`*.{name}`). */
  cockpitCertificateArn: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/\S+$/,
          'must be an ACM certificate ARN in us-east-1, the only region CloudFront takes certificates from',
        ),
      ),
  ),
});
export type DomainConfig = z.output<typeof domainSchema>;

/** The host name of the ingest endpoint under a configured domain. */
export const ingestHostName = (domain: DomainConfig): string => `ingest.${domain.name}`;

/** A cockpit's host name under a configured domain: its name as one DNS label. */
export const cockpitHostName = (domain: DomainConfig, cockpit: string): string =>
  `${
    cockpit
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63)
      .replace(/-+$/, '') || 'cockpit'
  }.${domain.name}`;

const bucketName = z
  .string()
  .check(
    z.regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'must be an S3 bucket name (3–63 lower-case letters, digits, "." and "-")',
    ),
  );

/**
 * Stored data the deployment uses without creating it (docs/deploy.md, "Restoring"): a table restored from a
 * point in time, or the table and buckets a torn-down deployment left behind, named here.
 */
const adoptSchema = z.strictObject({
  table: z.optional(
    z.string().check(z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name (3–255 of A-Z a-z 0-9 _ . -)')),
  ),
  inboxBucket: z.optional(bucketName),
  dataBucket: z.optional(bucketName),
  accessLogsBucket: z.optional(bucketName),
});
export type AdoptConfig = z.output<typeof adoptSchema>;

/** The run count above which the engine answers a space's figures and exports (`engine.aboveRuns`). */
export const DEFAULT_ENGINE_ABOVE_RUNS = 1_000_000;

/**
 * Local mode's engine (DuckDB, in the read process): the most memory its buffers may take, spilling to disk past
 * it, and the threads a query runs on (`engine.memoryMb`, `engine.threads`).
 */
export const DEFAULT_ENGINE_MEMORY_MB = 2048;
export const DEFAULT_ENGINE_THREADS = 2;

/** The run count up to which the cockpit holds a space's runs in the browser (`cockpit.browserRuns`). */
export const DEFAULT_COCKPIT_BROWSER_RUNS = 1_000_000;

const queueConcurrency = (fallback: number) =>
  z._default(z.int().check(z.gte(2, "must be at least 2 (Lambda's minimum)"), z.lte(1000)), fallback);

export const configSchema = z
  .strictObject({
    defaultJudgeModel: z._default(nonEmptyText, DEFAULT_JUDGE_MODEL),
    /** Judge calls per UTC day of all spaces together, beside each space's `judge.dailyCap`; absent = no shared cap. */
    judgeDailyCapAllSpaces: z.optional(count),
    spaces: z
      .record(spaceName, spaceSchema)
      .check(z.refine((s) => Object.keys(s).length > 0, 'must declare at least one space')),
    cockpits: z._default(z.record(pathSafeIdentity, cockpitSchema), {}),
    /** Per model name; a model without a price has an unknown (null) cost, never 0. */
    prices: z._default(z.record(nonEmptyText, priceSchema), {}),
    alarms: z._default(
      z.strictObject({
        email: z.optional(z.email()),
        /** An AWS Budget on the deployment's monthly cost, in USD: mails `email` at 80 % and on a forecast overrun. */
        monthlyBudgetUsd: z.optional(z.number().check(z.positive())),
      }),
      {},
    ),
    domain: z.optional(domainSchema),
    adopt: z.optional(adoptSchema),
    /**
     * The most invocations each queue's event source runs at once (Lambda takes 2–1000): together well below a
     * new account's 10 concurrent executions, leaving room for ingest and the read APIs (docs/deploy.md).
     */
    concurrency: z._default(z.strictObject({ lander: queueConcurrency(3), judge: queueConcurrency(2) }), {
      lander: 3,
      judge: 2,
    }),
    /** Ingest behind CloudFront with an AWS WAF web ACL limiting each IP address (docs/deploy.md, "Ingest firewall"). */
    ingest: z._default(
      z.strictObject({
        waf: z._default(z.boolean(), false),
        /** Requests per IP address per 5 minutes before WAF blocks it (AWS WAF takes 10 to 2,000,000,000). */
        wafRequestsPer5Minutes: z._default(z.int().check(z.gte(10), z.lte(2_000_000_000)), 1000),
      }),
      { waf: false, wafRequestsPer5Minutes: 1000 },
    ),
    /**
     * Above how many runs a space's `/stats`, `/pairs` and exports are answered by the analytics engine over the
     * run dataset (DuckDB locally, Athena in AWS) rather than from the runs the read function holds (§6).
     */
    engine: z._default(
      z.strictObject({
        aboveRuns: z._default(count, DEFAULT_ENGINE_ABOVE_RUNS),
        /** Local mode's DuckDB: its buffers' limit, in MB (it spills to a temporary folder past it), and its threads. */
        memoryMb: z._default(z.int().check(z.gte(32, 'must be at least 32 (MB)')), DEFAULT_ENGINE_MEMORY_MB),
        threads: z._default(z.int().check(z.gte(1), z.lte(64)), DEFAULT_ENGINE_THREADS),
      }),
      { aboveRuns: DEFAULT_ENGINE_ABOVE_RUNS, memoryMb: DEFAULT_ENGINE_MEMORY_MB, threads: DEFAULT_ENGINE_THREADS },
    ),
    /**
     * Up to how many runs the cockpit downloads a space's columns and works out every card in the browser; above
     * it (and where the engine answers the space) the page asks the read API for its cards and pages (§6).
     */
    cockpit: z._default(z.strictObject({ browserRuns: z._default(count, DEFAULT_COCKPIT_BROWSER_RUNS) }), {
      browserRuns: DEFAULT_COCKPIT_BROWSER_RUNS,
    }),
    /** Cognito's own mailer sends 50 e-mails a day; a verified SES identity lifts that (docs/deploy.md). */
    cognito: z.optional(
      z.strictObject({
        sesFrom: z.email(),
        /** The SES identity's region (Cognito uses SES in its own region or one of a few others). */
        sesRegion: z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as "eu-west-1"')),
      }),
    ),
  })
  .check(
    z.superRefine((config, ctx) => {
      for (const [name, cockpit] of Object.entries(config.cockpits)) {
        if (!ownEntry(config.spaces, cockpit.space)) {
          ctx.addIssue({
            code: 'custom',
            path: ['cockpits', name, 'space'],
            message: `names unknown space "${cockpit.space}"`,
          });
        }
      }
      for (const clash of keyNameClashes(config.spaces))
        ctx.addIssue({ code: 'custom', path: ['spaces'], message: clash });
      if (config.domain)
        for (const issue of domainIssues(config.domain, Object.keys(config.cockpits))) ctx.addIssue(issue);
      if (config.ingest.waf && config.domain)
        ctx.addIssue({
          code: 'custom',
          path: ['ingest', 'waf'],
          message:
            'cannot be combined with "domain" yet: ingest.{domain} names the API itself, which the firewall would not cover',
        });
      if (config.alarms.monthlyBudgetUsd !== undefined && !config.alarms.email)
        ctx.addIssue({
          code: 'custom',
          path: ['alarms', 'email'],
          message: 'is needed with monthlyBudgetUsd: the budget mails it when the month passes 80 % of the amount',
        });
      for (const [name, space] of Object.entries(config.spaces)) {
        const listed: [string, string[]][] = [
          ['issuePublishers', space.issuePublishers ?? []],
          ['hostsByModel', Object.values(space.hostsByModel ?? {}).flat()],
        ];
        for (const [key, hosts] of listed) {
          const strangers = [...new Set(hosts.filter((host) => !space.senders.includes(host)))];
          if (strangers.length)
            ctx.addIssue({
              code: 'custom',
              path: ['spaces', name, key],
              message: `names ${strangers.map((h) => `"${h}"`).join(', ')}, which the space's "senders" does not list`,
            });
        }
      }
    }),
  );

export type ReplayConfig = z.output<typeof configSchema>;

function domainIssues(domain: DomainConfig, cockpits: string[]) {
  const issue = (key: string, message: string) => ({ code: 'custom' as const, path: ['domain', key], message });
  const issues = [];
  if (!domain.hostedZoneId && !domain.ingestCertificateArn)
    issues.push(
      issue(
        'ingestCertificateArn',
        `is needed for ${ingestHostName(domain)} when no hostedZoneId lets the deployment make and validate one`,
      ),
    );
  if (cockpits.length > 0 && !domain.cockpitCertificateArn)
    issues.push(issue('cockpitCertificateArn', `is needed for the cockpits' names (*.${domain.name}), from us-east-1`));
  const owners = new Map<string, string>();
  for (const cockpit of cockpits) {
    const host = cockpitHostName(domain, cockpit);
    const other = owners.get(host);
    if (other !== undefined)
      issues.push(issue('name', `gives cockpits ${other} and ${cockpit} the same name ${host}; rename one`));
    owners.set(host, cockpit);
  }
  if (owners.has(ingestHostName(domain)))
    issues.push(
      issue('name', `gives cockpit ${owners.get(ingestHostName(domain))} the ingest endpoint's name; rename it`),
    );
  return issues;
}
export type SpaceConfig = ReplayConfig['spaces'][string];

/** A map entry by own property only: a space or cockpit named "constructor" or "__proto__" is just unknown. */
export const ownEntry = <T>(map: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(map, key) ? map[key] : undefined;

/** The configuration of a space, or undefined for any name that is not a declared space. */
export const spaceOf = (config: ReplayConfig, name: string): SpaceConfig | undefined => ownEntry(config.spaces, name);

/**
 * Every backend spells a key name differently (docs/contract.md §3): `{secretConfigKey}:{host}` as is, `:` as `__` in
 * environment and file names, `:` as `/` in Secrets Manager. Two different keys (two hosts, or a host and a
 * space's fleet-wide value, which is never a candidate) must not meet under any spelling.
 */
function keyNameClashes(spaces: Record<string, { senders: string[]; secretConfigKey: string }>): string[] {
  const spellings = (name: string) => [name, name.replaceAll(':', '__'), name.replaceAll(':', '/')];
  const owners = new Map<string, string>();
  const clashes = new Set<string>();
  const claim = (name: string, owner: string) => {
    for (const spelling of spellings(name)) {
      const earlier = owners.get(spelling);
      if (earlier !== undefined && earlier !== owner)
        clashes.add(
          `${earlier} and ${owner} would share the same key "${spelling}"; rename a host or a secretConfigKey`,
        );
      else owners.set(spelling, owner);
    }
  };
  for (const { secretConfigKey, senders } of Object.values(spaces)) {
    claim(secretConfigKey, `the fleet-wide value "${secretConfigKey}"`);
    for (const host of senders)
      claim(`${secretConfigKey}:${host}`, `host "${host}" (key "${secretConfigKey}:${host}")`);
  }
  return [...clashes];
}

export class ConfigError extends Error {}

/** The export fields of a space: its `exports.fields`, else the allowlist but the judge's reason. */
/**
 * Whether the judge's reasons of a space may be served: not where a public cockpit shows the space (a reason,
 * however guarded, is the judge's words about a private issue).
 */
export const reasonShown = (config: ReplayConfig, space: string): boolean =>
  !Object.values(config.cockpits).some((cockpit) => cockpit.space === space && cockpit.public);

/** The space's export columns; `judgeReason` only where reasons may be served. */
export const exportFieldsOf = (config: ReplayConfig, space: string): readonly ExportField[] => {
  const fields = spaceOf(config, space)?.exports?.fields ?? DEFAULT_EXPORT_FIELDS;
  return reasonShown(config, space) ? fields : fields.filter((f) => f !== 'judgeReason');
};

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
  spaceOf(config, space)?.judge.model ?? config.defaultJudgeModel;

/**
 * Whether the original fixes of a space are served: a read API configured for one cockpit (the deployed
 * case) follows that cockpit's `showReference`; local mode, which serves every cockpit, any of the space's.
 */
export const referenceShown = (config: ReplayConfig, space: string): boolean =>
  Object.values(config.cockpits).some((cockpit) => cockpit.space === space && cockpit.showReference);

/**
 * The judge's daily caps for one space (docs/contract.md §5): the space's own `judge.dailyCap`, lowered to its
 * share of `judgeDailyCapAllSpaces` (in proportion to its cap among the judging spaces, rounded up) so no
 * space can spend the others' calls; and the most one host's runs may take, `judge.hostShare` of that
 * (at least one call) where the space has more than one sender.
 */
export function judgeCapsOf(
  config: ReplayConfig,
  space: string,
): { spaceCap: number; hostCap: number; shareOfAllSpaces: number | undefined } {
  const { dailyCap, hostShare } = config.spaces[space]!.judge;
  const all = config.judgeDailyCapAllSpaces;
  const judging = Object.values(config.spaces).reduce((sum, s) => sum + s.judge.dailyCap, 0);
  const shareOfAllSpaces = all === undefined || judging === 0 ? undefined : Math.ceil((all * dailyCap) / judging);
  const spaceCap = shareOfAllSpaces === undefined ? dailyCap : Math.min(dailyCap, shareOfAllSpaces);
  // A space with one sender has no other host to keep budget for.
  const shared = config.spaces[space]!.senders.length > 1;
  return { spaceCap, hostCap: shared ? Math.max(1, Math.floor(hostShare * spaceCap)) : spaceCap, shareOfAllSpaces };
}

/** Spaces that judge (a daily cap above 0) without a `repos` list: their judge fetches any repository the GitHub App can read. */
export const judgedSpacesWithoutRepos = (config: ReplayConfig): string[] =>
  Object.entries(config.spaces)
    .filter(([, space]) => space.judge.dailyCap > 0 && space.repos === undefined)
    .map(([name]) => name);

/** Whether a space accepts issue records of `repo` and lets the judge fetch it (compared without case). */
export const repoAllowed = (space: SpaceConfig, repo: string): boolean =>
  space.repos === undefined || space.repos.some((listed) => listed.toLowerCase() === repo.toLowerCase());

/**
 * What a model's name reads as: look-alike letters read as Latin, compatibility forms folded (a full-width colon),
 * marks and default-ignorable code points (a combining grapheme joiner, a Hangul filler) removed, case ignored,
 * the letters a reader may take for one another (I, l, 1, | and !; O and 0; S and 5; g and 9) one, as are the
 * pairs read as one letter (rn as m, cl as d, vv as w), and each run of other characters (spaces, punctuation, `:`
 * and `/`, which its run ids write `_`) one `_`, none at either end. Separators are kept: "qwen2-57b" and
 * "qwen2.5-7b" are two models.
 */
const modelSkeleton = (model: string) =>
  readAsLatin(
    readAsLatin(model)
      .normalize('NFKD')
      .replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, ''),
  )
    .toLowerCase()
    .replace(/rn/g, 'm')
    .replace(/c[il1|!]/g, 'd')
    .replace(/vv/g, 'w')
    .replace(/[il1|!]/g, 'i')
    .replace(/[059]/g, (digit) => ({ '0': 'o', '5': 's', '9': 'g' })[digit]!)
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_|_$/g, '');

/**
 * The models a space pins (`hostsByModel`) that `model` reads as, each with its hosts: a model is pinned with every
 * name that reads as it, so "qwen3_8b", "Qwen3：8b" and "qwen3:8b " (a no-break space) are pinned with a pinned
 * "qwen3:8b", and so is a run id's form of it.
 */
export const pinsOfModel = (space: SpaceConfig, model: string): [pinned: string, hosts: string[]][] =>
  Object.entries(space.hostsByModel ?? {}).filter(([pinned]) => modelSkeleton(pinned) === modelSkeleton(model));

/** Whether `host` may publish issue records in the space: a listed publisher, or any sender when none are listed. */
export const mayPublishIssues = (space: SpaceConfig, host: string): boolean =>
  space.issuePublishers === undefined ? space.senders.includes(host) : space.issuePublishers.includes(host);

/** Whether the space still verifies version 1 signatures at `now`: through the whole of its `acceptV1Until` day (UTC). */
export const acceptsV1At = (space: SpaceConfig, now: Date): boolean =>
  space.acceptV1Until !== undefined && now.getTime() < Date.parse(`${space.acceptV1Until}T00:00:00Z`) + 86_400_000;

/** Every (secretConfigKey, host) pair whose key is a signature candidate, deduplicated. */
export function keyCandidates(config: ReplayConfig): { secretConfigKey: string; host: string }[] {
  const seen = new Map<string, { secretConfigKey: string; host: string }>();
  for (const space of Object.values(config.spaces)) {
    for (const host of space.senders)
      seen.set(`${space.secretConfigKey}:${host}`, { secretConfigKey: space.secretConfigKey, host });
  }
  return [...seen.values()];
}
