import { useScratchFolder } from './scratch-folder.ts';

export default useScratchFolder;
