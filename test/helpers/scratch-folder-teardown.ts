import { removeScratchFolder } from './scratch-folder.ts';

export default removeScratchFolder;
