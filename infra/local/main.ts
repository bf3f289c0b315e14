// `npm start`: local mode on HOST:PORT with data under REPLAY_DATA_DIR (docs/contract.md §10).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, readConfigFile } from '#schema/config.ts';
import { startLocalMode } from './local-mode.ts';
import { localPaths } from './paths.ts';
import { LOCAL_OUTPUTS_FILE, localOutputs } from './outputs.ts';

// Lambda runs Node 22+; on a developer's Node 20 the SDK's upgrade notice is noise on every start.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { configPath, dataDir, keysDir } = localPaths();

try {
  const config = readConfigFile(configPath);
  const local = await startLocalMode({
    config,
    dataDir,
    keysDir,
    host: process.env.HOST,
    port: process.env.PORT ? Number(process.env.PORT) : undefined,
    log: (line) => console.log(line),
  });
  console.log(`replay-bench local mode: ${local.url}/  (config ${configPath}, data ${dataDir})`);
  // What `npm run smoke -- <file>` reads, as it reads a deployment's outputs.
  const outputsPath = join(dataDir, LOCAL_OUTPUTS_FILE);
  writeFileSync(outputsPath, `${JSON.stringify(localOutputs(local.url, config), null, 2)}\n`);
  console.log(`  outputs: ${outputsPath}`);
  for (const [name, space] of Object.entries(config.spaces)) {
    console.log(
      `  space ${name}: POST ${local.url}/hooks/${encodeURIComponent(name)}/ingest  senders: ${space.senders.join(', ')}`,
    );
  }
  for (const key of local.generatedKeys) {
    console.log(`  generated a development key for ${key.host}: ${key.path}`);
    console.log(`    sign with: openssl dgst -sha256 -hmac "$(cat '${key.path}')" -hex < delivery.json`);
  }
  for (const { host } of local.weakKeys) {
    console.warn(
      `  warning: the key of ${host} is shorter than 32 bytes. It still verifies, but it is ` +
        `weak: pair ${host} anew with \`openssl rand -hex 32\` (docs/runner.md, "Pairing a Mac").`,
    );
  }
  const shutdown = () => void local.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
