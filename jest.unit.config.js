// `npm run test:unit`: the pure tests of test/unit alone, for the inner loop. They take their services as
// in-memory ports, so no emulator set is started for them (jest.config.js starts one per worker for the rest).
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
  globalSetup: '<rootDir>/test/helpers/scratch-folder-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/scratch-folder-teardown.ts',
};
