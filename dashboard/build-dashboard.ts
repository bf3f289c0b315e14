// Bundles the cockpit into a folder: one script and one stylesheet, no inline code, so the page runs under
// the deployed Content-Security-Policy (script-src 'self'). `npm run build:dashboard` builds dashboard/dist/
// for local mode; `cdk synth` builds its own copy for the cockpit buckets, so no deploy ships a stale or
// missing dashboard.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;

export async function buildDashboard(dist: string): Promise<void> {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  const script = await build({
    entryPoints: { app: join(here, 'src/main.ts') },
    metafile: true,
    outdir: dist,
    bundle: true,
    format: 'esm',
    // The entry asks for the runs; the rest of the cockpit is a chunk it loads meanwhile (main.ts).
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await build({
    entryPoints: { app: join(here, 'styles.css') },
    outdir: dist,
    bundle: true,
    minify: true,
    logLevel: 'warning',
  });
  // The page names every chunk for the browser to fetch and compile beside the entry, rather than one
  // after the other as each import is found.
  const chunks = Object.keys(script.metafile.outputs)
    .map((file) => relative(dist, file).split(sep).join('/'))
    .filter((path) => path.startsWith('chunks/') && path.endsWith('.js'));
  const preloads = chunks.map((path) => `    <link rel="modulepreload" href="/${path}" />\n`).join('');
  const page = readFileSync(join(here, 'index.html'), 'utf8');
  writeFileSync(join(dist, 'index.html'), page.replace(/(\s*<script type="module")/, `\n${preloads.trimEnd()}$1`));
}
