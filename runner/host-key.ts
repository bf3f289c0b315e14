// The key a runner host signs with (docs/contract.md §7): `--key-file`, else `Hosting__ModuleReportSecret__{host}` from
// the environment, else a file of that name in REPLAY_KEYS_DIR. No key at all means "not paired yet":
// deliveries wait in the outbox. A key file that exists but is empty, that other users can read, or that is a
// link, a FIFO or anything but a regular file, is refused with a sentence: signing with a leaked, half-written or
// substituted key would be worse than not sending.
import { join } from 'node:path';
import { keyEnvName } from '#shared/key-names.ts';
import { DEFAULT_SECRET_CONFIG_KEY } from '#schema/config.ts';
import { readFileSafely, UnsafeFileError } from './safe-read.ts';

/** A key is a line of text: anything longer is not a key file. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

export interface KeySettings {
  keyFile?: string;
  env: NodeJS.ProcessEnv;
}

export interface HostKey {
  host: string;
  key: string | null;
  /** Where it was (or would be) found, for the "not paired yet" sentence. Never the key. */
  source: string;
}

async function readKeyFile(path: string): Promise<string | null> {
  let read;
  try {
    read = await readFileSafely(path, { maxBytes: MAX_KEY_FILE_BYTES });
  } catch (error) {
    if (error instanceof UnsafeFileError) throw new KeyFileError(`The key file ${error.path} ${error.reason}`);
    throw error;
  }
  if (!read) return null;
  if (read.mode & 0o077) {
    throw new KeyFileError(
      `The key file ${path} can be read by other users (mode ${(read.mode & 0o777).toString(8)}): ` +
        `run \`chmod 600 ${path}\`, and replace the key if others may have read it.`,
    );
  }
  const key = read.bytes.toString('utf8').trim();
  if (!key)
    throw new KeyFileError(
      `The key file ${path} is empty: it must hold the host's key (see docs/runner.md, "Pairing a Mac").`,
    );
  return key;
}

export async function hostKey(host: string, settings: KeySettings): Promise<HostKey> {
  if (settings.keyFile) return { host, key: await readKeyFile(settings.keyFile), source: settings.keyFile };
  const name = keyEnvName(DEFAULT_SECRET_CONFIG_KEY, host);
  const fromEnv = settings.env[name]?.trim();
  if (fromEnv) return { host, key: fromEnv, source: `the environment variable ${name}` };
  const keysDir = settings.env.REPLAY_KEYS_DIR;
  if (!keysDir)
    return { host, key: null, source: `--key-file, the environment variable ${name} or REPLAY_KEYS_DIR/${name}` };
  const path = join(keysDir, name);
  return { host, key: await readKeyFile(path), source: path };
}
