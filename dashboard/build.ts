// `npm run build:dashboard`: bundles the cockpit into dashboard/dist/ (served by local mode at / and
// uploaded by the CDK cockpit construct). One script and one stylesheet, no inline code, so the page runs
// under the deployed Content-Security-Policy (script-src 'self').
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const started = Date.now();
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
console.log(`cockpit built into ${dist} in ${Date.now() - started} ms`);
