import { useScratchFolder } from './scratch-folder.ts';
import { startSharedEmulators } from './shared-emulators.ts';

export default (globalConfig: { maxWorkers: number }) => {
  useScratchFolder();
  return startSharedEmulators(globalConfig.maxWorkers);
};
