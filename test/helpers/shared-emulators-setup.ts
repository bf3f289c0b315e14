import type { Config } from 'jest';
import { startSharedEmulators } from './shared-emulators.ts';

export default (globalConfig: { maxWorkers: number } & Config) => startSharedEmulators(globalConfig.maxWorkers);
