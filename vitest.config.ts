import { defineConfig } from 'vitest/config';

// CI sets VITEST_JSON so `.ci/run` can print the `N passed, N failed` line from the JSON report.
const jsonReport = process.env.VITEST_JSON;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // One DynamoDB Local per run, started in the background; suites reach it with dynamoDbLocalEndpoint().
    globalSetup: ['test/support/dynamodb-local-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
