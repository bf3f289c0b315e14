import { removeScratchFolder } from './scratch-folder.ts';
import { stopSharedEmulators } from './shared-emulators.ts';

export default async () => {
  await stopSharedEmulators();
  removeScratchFolder();
};
