// The judge's credentialed services, resolved from the environment a function runs in (docs/contract.md §10). In AWS
// the stack names two Secrets Manager secrets (ANTHROPIC_SECRET_ARN: the key; GITHUB_APP_SECRET_ARN:
// {"appId","privateKey","installationId"}), read through a short cache so a key put in the console is used
// within a minute without a deploy; the wiring passes the secret values it reads them with. Locally the
// variables hold the credentials themselves. A secret without a value, or variables that are not set, mean
// "no credentials": rows wait instead of failing.
import type { JudgeModel, ReferenceSource, ServiceProvider } from '#core/ports.ts';
import { AnthropicJudgeModel } from '../anthropic-judge-model.ts';
import type { SecretValues } from './secret-values.ts';
import { GitHubReferenceSource, PUBLIC_GITHUB_API, type GitHubCredentials } from '../github-reference-source.ts';

const SECRET_CACHE_SECONDS = 60;

export function judgeModelProvider(env: NodeJS.ProcessEnv, secrets?: SecretValues): ServiceProvider<JudgeModel> {
  const baseURL = env.ANTHROPIC_BASE_URL || undefined;
  if (env.ANTHROPIC_SECRET_ARN) {
    return fromSecret(secrets, env.ANTHROPIC_SECRET_ARN, (value) => {
      const apiKey = parseAnthropicSecret(value);
      return apiKey ? new AnthropicJudgeModel({ apiKey, baseURL }) : null;
    });
  }
  const model = env.ANTHROPIC_API_KEY ? new AnthropicJudgeModel({ apiKey: env.ANTHROPIC_API_KEY, baseURL }) : null;
  return async () => model;
}

export function referenceSourceProvider(
  env: NodeJS.ProcessEnv,
  secrets?: SecretValues,
): ServiceProvider<ReferenceSource> {
  const baseUrl = env.GITHUB_API_URL || PUBLIC_GITHUB_API;
  if (env.GITHUB_APP_SECRET_ARN) {
    return fromSecret(secrets, env.GITHUB_APP_SECRET_ARN, (value) => {
      const app = parseGitHubAppSecret(value);
      return app ? new GitHubReferenceSource(app, baseUrl) : null;
    });
  }
  const credentials = githubCredentialsFromEnv(env);
  const source = credentials ? new GitHubReferenceSource(credentials, baseUrl) : null;
  return async () => source;
}

/** Local GitHub credentials: an App when all three of its variables are set, else GITHUB_TOKEN. */
export function githubCredentialsFromEnv(env: NodeJS.ProcessEnv): GitHubCredentials | null {
  if (env.GITHUB_APP_ID && env.GITHUB_APP_PRIVATE_KEY && env.GITHUB_APP_INSTALLATION_ID) {
    return {
      kind: 'app',
      appId: env.GITHUB_APP_ID,
      privateKey: env.GITHUB_APP_PRIVATE_KEY,
      installationId: env.GITHUB_APP_INSTALLATION_ID,
    };
  }
  return env.GITHUB_TOKEN ? { kind: 'token', token: env.GITHUB_TOKEN } : null;
}

/** A plain key, or {"apiKey": "..."}. */
export function parseAnthropicSecret(value: string): string | null {
  const trimmed = value.trim();
  if (!trimmed.startsWith('{')) return trimmed || null;
  try {
    const apiKey = (JSON.parse(trimmed) as { apiKey?: unknown }).apiKey;
    return typeof apiKey === 'string' && apiKey ? apiKey : null;
  } catch {
    return null;
  }
}

export function parseGitHubAppSecret(value: string): GitHubCredentials | null {
  try {
    const parsed = JSON.parse(value) as { appId?: unknown; privateKey?: unknown; installationId?: unknown };
    const text = (v: unknown) => (typeof v === 'number' ? String(v) : typeof v === 'string' && v ? v : null);
    const [appId, privateKey, installationId] = [
      text(parsed.appId),
      text(parsed.privateKey),
      text(parsed.installationId),
    ];
    return appId && privateKey && installationId ? { kind: 'app', appId, privateKey, installationId } : null;
  } catch {
    return null;
  }
}

/** The service built from a secret's current value; rebuilt only when the value changes. */
function fromSecret<T>(
  secrets: SecretValues | undefined,
  secretId: string,
  build: (value: string) => T | null,
): ServiceProvider<T> {
  if (!secrets) throw new Error(`${secretId} names a secret, but no Secrets Manager client was given to read it.`);
  let last: { value: string; service: T | null } | undefined;
  return async () => {
    const value = await secrets.text(secretId, SECRET_CACHE_SECONDS);
    if (value === null) return null;
    if (last?.value !== value) last = { value, service: build(value) };
    return last.service;
  };
}
