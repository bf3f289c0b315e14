// How a key name `{secretConfigKey}:{host}` maps onto each backend (docs/contract.md §3).
export const keyName = (secretConfigKey: string, host: string) => `${secretConfigKey}:${host}`;
/** Environment variable and key-file name: `:` becomes `__`. */
export const keyEnvName = (secretConfigKey: string, host: string) =>
  keyName(secretConfigKey, host).replaceAll(':', '__');
/** Secrets Manager secret name: `:` becomes `/`. */
export const keySecretName = (secretConfigKey: string, host: string) =>
  keyName(secretConfigKey, host).replaceAll(':', '/');
/** The folder of every host's secret under one secretConfigKey: `Hosting/ModuleReportSecret`. */
export const keySecretFolder = (secretConfigKey: string) => secretConfigKey.replaceAll(':', '/');
