import { App } from 'aws-cdk-lib';
import { RuleError } from '../shared/rules/index.js';
import { addAuditAlertsStack } from './audit-alerts-app.js';
import { InfraError } from './errors.js';

const app = new App();
try {
  addAuditAlertsStack({
    app,
    projectRoot: process.cwd(),
    defaultEnv: {
      ...(process.env.CDK_DEFAULT_ACCOUNT ? { account: process.env.CDK_DEFAULT_ACCOUNT } : {}),
      ...(process.env.CDK_DEFAULT_REGION ? { region: process.env.CDK_DEFAULT_REGION } : {}),
    },
  });
} catch (error) {
  // Configuration and rule problems are the user's to fix: their message says what and where, and a
  // stack trace into the CDK app would only bury it.
  if (error instanceof InfraError || error instanceof RuleError) {
    process.stderr.write(`\n${error.message}\n\n`);
    process.exit(1);
  }
  throw error;
}
app.synth();
