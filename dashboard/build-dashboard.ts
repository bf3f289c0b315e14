// Bundles the cockpit into a folder: one script and one stylesheet, no inline code, so the page runs under
// the deployed Content-Security-Policy (script-src 'self'). `npm run build:dashboard` builds dashboard/dist/
// for local mode; `cdk synth` builds its own copy for the cockpit buckets, so no deploy ships a stale or
// missing dashboard.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;

export async function buildDashboard(dist: string): Promise<void> {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: { app: join(here, 'src/main.ts') },
    outdir: dist,
    bundle: true,
    format: 'esm',
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
  copyFileSync(join(here, 'index.html'), join(dist, 'index.html'));
}
