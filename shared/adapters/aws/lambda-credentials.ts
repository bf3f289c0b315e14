// What the SDK clients' default credential chain comes down to in Lambda. The runtime puts the execution
// role's credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), and
// with no AWS_PROFILE the chain's first link, `fromEnv`, answers every time. The rest of the chain (SSO,
// shared ini files, credential processes, web identity, container and instance metadata, with the STS and
// SSO clients they call) never runs there, yet every client's runtime config imports it statically: about
// 115 KB of each function bundle. The function bundles alias `@aws-sdk/credential-provider-node` to this
// module (FUNCTION_ALIASES in infra/aws/constructs/replay-function.ts); local mode, tests and tools keep the
// full chain.
import { fromEnv, type FromEnvInit } from '@aws-sdk/credential-provider-env';

/** The name and signature the clients' runtime config imports from `@aws-sdk/credential-provider-node`. */
export const defaultProvider = (init?: FromEnvInit) => fromEnv(init);
