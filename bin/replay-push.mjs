#!/usr/bin/env node
// `npx replay-push` in a checkout: runs the TypeScript source through tsx. Runner hosts use the bundled
// replay-push.mjs from `npm run build:client` instead (no node_modules needed).
import { register } from 'tsx/esm/api';

register();
await import('./replay-push.ts');
