// `npm run build:dashboard`: the cockpit into dashboard/dist/, which local mode serves at /.
import { join } from 'node:path';
import { buildDashboard } from './build-dashboard.ts';

const dist = join(import.meta.dirname, 'dist');
const started = Date.now();
await buildDashboard(dist);
console.log(`cockpit built into ${dist} in ${Date.now() - started} ms`);
