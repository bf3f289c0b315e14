// `npm run test:browser`: the cockpit in headless Chromium against local mode (not part of `npm test`,
// which runs without a browser). One file at a time: each starts local mode and a browser.
import { swcTransform } from './jest.config.js';

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: swcTransform,
  testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
  testTimeout: 60_000,
  maxWorkers: 1,
  globalSetup: '<rootDir>/test/browser/helpers/require-chromium.ts',
  globalTeardown: '<rootDir>/test/helpers/scratch-folder-teardown.ts',
  setupFiles: ['<rootDir>/test/helpers/quiet-sdk-notice.ts'],
  reporters: ['default', '<rootDir>/test/helpers/summary-line-reporter.js'],
};
