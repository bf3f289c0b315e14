// `npm run test:unit`: the pure tests of test/unit alone, for the inner loop. They take their services as
// in-memory ports, so no emulator set is started for them (jest.config.js starts one per worker for the rest).
import base from './jest.config.js';

const { globalSetup: _setup, globalTeardown: _teardown, ...rest } = base;

export default { ...rest, testMatch: ['<rootDir>/test/unit/**/*.test.ts'] };
