import { stopSharedEmulators } from './shared-emulators.ts';

export default stopSharedEmulators;
