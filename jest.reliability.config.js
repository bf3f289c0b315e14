// `npm run test:reliability`: the suite of test/reliability (docs/reliability.md), one file at a time so the
// load figures are not skewed by another suite on the same cores.
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/reliability/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300_000,
  maxWorkers: 1,
  // Each local mode here runs emulators of its own, as `npm start` does: the load and fault figures are theirs.
  globalSetup: '<rootDir>/test/helpers/scratch-folder-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/scratch-folder-teardown.ts',
};
