// `npm test`: every suite but the browser's, on jest in native ESM (the sources are ESM with `.ts` import
// specifiers, so @swc/jest strips types and leaves the imports as they are). Type checking is `tsc`'s job.
export const swcTransform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: swcTransform,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The reliability suite takes minutes (load, fault matrix, fuzz): `npm run test:reliability`, in .ci/run.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/browser/', '<rootDir>/test/reliability/'],
  testTimeout: 30_000,
  // One process per file, as before: suites start emulators and servers and must not share module state.
  maxWorkers: 2,
  setupFiles: ['<rootDir>/test/helpers/quiet-sdk-notice.ts'],
  // One set of emulator servers per worker, shared by the files that need them (test/helpers/shared-emulators.ts).
  globalSetup: '<rootDir>/test/helpers/shared-emulators-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/shared-emulators-teardown.ts',
  reporters: ['default', '<rootDir>/test/helpers/summary-line-reporter.js'],
};
