// The command line of `replay-push` (docs/contract.md §7): the usage text, the options and their environment
// variables, checked before any command runs.
import { isIPv4 } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const USAGE = `Usage: replay-push <command> [options]
  run <run-folder>           queue one finished run and deliver the outbox
  sync <runs-root>           queue every run folder not yet accepted, then deliver (catch-up)
  issue <task.json>…         deliver issue records
  hidden-test <run-folder>   deliver the run's hidden-tests.json
  status [<runs-root>]       what is queued, rejected, and the last error per host
  check                      one signed check: is this host's key paired and the host listed? Stores nothing
  import <format> <path>…    a harness's outputs (swe-bench, swe-agent, mini-swe-agent, openhands, inspect
                             or auto) as
                             run folders under --into, delivered as sync delivers them
Options (environment):
  --endpoint URL   (REPLAY_ENDPOINT)  the ingest URL, …/hooks/{space}/ingest
  --host NAME      (REPLAY_HOST)      this runner's host name, as paired (required without --key-file)
  --outbox DIR     (REPLAY_OUTBOX)    default <runs-root>/.replay-outbox
  --key-file FILE                     else Hosting__ModuleReportSecret__{host} from the environment or REPLAY_KEYS_DIR
  --forbid DIR                        a root the agent must not touch (repeatable)
  --retry-for SECONDS (REPLAY_RETRY_FOR) how long to keep retrying an unavailable endpoint (default 60)
  --dry-run                           print the rows and what would be sent; send nothing
  --json                              the summary as one JSON object
  --into DIR                          import: where the run folders go (default ./replay-import)
  --model NAME, --harness-version V   import: for runs whose source does not name them
  --dataset FILE                      import: SWE-bench dataset JSONL, for the issue records' fix size and tier
See docs/runner.md.`;

/** Wrong or missing arguments: the message, then the usage text, exit code 2. */
export class UsageError extends Error {}

export interface CliSettings {
  endpoint?: string;
  host?: string;
  outbox?: string;
  keyFile?: string;
  forbid: string[];
  retryForMs: number;
  dryRun: boolean;
  json: boolean;
  /** `import`: the import root, and what a source that lacks them is taken to say. */
  into?: string;
  model?: string;
  harnessVersion?: string;
  dataset?: string;
  /** Not an option: the clock deliveries are signed by, when runCli's caller gives one (tests do). */
  now?: () => number;
}

/** https anywhere; plain http only to this machine (127.0.0.0/8, ::1, localhost), as local mode listens. */
export function isSecureEndpoint(endpoint: string): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || (isIPv4(host) && host.startsWith('127.'));
}

export function parseArguments(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { command: string; targets: string[]; settings: CliSettings } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        endpoint: { type: 'string' },
        host: { type: 'string' },
        outbox: { type: 'string' },
        'key-file': { type: 'string' },
        forbid: { type: 'string', multiple: true },
        'retry-for': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        into: { type: 'string' },
        model: { type: 'string' },
        'harness-version': { type: 'string' },
        dataset: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...targets] = positionals;
  if (values.help) return { command: 'help', targets: [], settings: {} as CliSettings };
  if (!command) throw new UsageError('Which command?');
  const retryFor = Number(values['retry-for'] ?? env.REPLAY_RETRY_FOR ?? 60);
  if (!Number.isFinite(retryFor) || retryFor < 0)
    throw new UsageError(
      `--retry-for must be a number of seconds, not "${values['retry-for'] ?? env.REPLAY_RETRY_FOR}".`,
    );
  const endpoint = values.endpoint ?? env.REPLAY_ENDPOINT;
  // A URL's scheme is case-insensitive (RFC 3986 §3.1); its path is not.
  const schemeLowered = endpoint?.replace(/^[a-z][a-z0-9+.-]*:/i, (scheme) => scheme.toLowerCase());
  if (schemeLowered !== undefined && !/^https?:\/\/[^/]+\/.*hooks\/[^/]+\/ingest$/.test(schemeLowered)) {
    throw new UsageError(`--endpoint must be the ingest URL, …/hooks/{space}/ingest, not "${endpoint}".`);
  }
  if (endpoint !== undefined && !isSecureEndpoint(endpoint)) {
    throw new UsageError(
      `--endpoint ${endpoint} is plain http to a host that is not this machine: signed runs go over https only ` +
        '(http is for local mode on 127.0.0.1, ::1 or localhost).',
    );
  }
  return {
    command,
    targets,
    settings: {
      endpoint,
      host: values.host ?? env.REPLAY_HOST,
      outbox: values.outbox ?? env.REPLAY_OUTBOX,
      keyFile: values['key-file'],
      forbid: values.forbid ?? [],
      retryForMs: retryFor * 1000,
      dryRun: values['dry-run'],
      json: values.json,
      into: values.into,
      model: values.model,
      harnessVersion: values['harness-version'],
      dataset: values.dataset,
    },
  };
}

/** The one target a command takes, resolved. */
export const exactlyOne = (targets: string[], what: string) => {
  if (targets.length !== 1) throw new UsageError(`Give exactly one ${what}.`);
  return resolve(targets[0]!);
};
