import { startSharedEmulators } from './shared-emulators.ts';

export default (globalConfig: { maxWorkers: number }) => startSharedEmulators(globalConfig.maxWorkers);
