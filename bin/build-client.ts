// `npm run build:client`: replay-push as one self-contained ES module (zod and all, no node_modules), which
// a runner host runs with Node ≥ 20 alone. Output: dist/replay-push.mjs (git-ignored).
import { resolve } from 'node:path';
import { build } from 'esbuild';

export const CLIENT_BUNDLE = resolve(import.meta.dirname, '../dist/replay-push.mjs');

export async function buildClient(outfile = CLIENT_BUNDLE): Promise<{ outfile: string; bytes: number }> {
  const result = await build({
    entryPoints: [resolve(import.meta.dirname, 'replay-push.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    // yauzl (the .eval reader) is CommonJS and requires Node's modules: give the ES module a require of its own.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
    metafile: true,
    logLevel: 'error',
  });
  return { outfile, bytes: result.metafile.outputs[Object.keys(result.metafile.outputs)[0]!]!.bytes };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { outfile, bytes } = await buildClient();
  console.log(`${outfile}: ${(bytes / 1024).toFixed(0)} KiB, needs only Node ≥ 20`);
}
