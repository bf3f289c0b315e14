// The project's own paths, in a module of their own: a test that only runs processes and reads their
// output finds the project without importing aws-cdk-lib and the stacks (synth.ts), about a second per file.
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
