export {
  type AddAuditAlertsStackOptions,
  type AuditAlertsDeployment,
  addAuditAlertsStack,
} from './audit-alerts-app.js';
export { AuditAlertsStack, type AuditAlertsStackProps } from './audit-alerts-stack.js';
export {
  ESM_REQUIRE_BANNER,
  lambdaEsbuildOptions,
  POLLER_ENTRY,
  POLLER_NODE_MAJOR,
  type PollerBundleOptions,
  pollerEsbuildOptions,
  pollerNodejsBundling,
  RULE_PACK_GLOBAL,
} from './bundling.js';
export {
  DEPLOY_CONFIG_CONTEXT_KEY,
  DEPLOY_CONFIG_FILE_CONTEXT_KEY,
  type DeployConfig,
  type DeployConfigInput,
  deployConfigSchema,
  parseDeployConfig,
} from './config.js';
export { resolveDeployConfig } from './config-source.js';
export {
  DeployConfigError,
  DeployConfigFileError,
  InfraError,
  PollerEnvironmentTooLargeError,
} from './errors.js';
export { pollerEnvironment } from './poller-environment.js';
export { buildRulePackModule, type RulePackModule } from './rule-pack-module.js';
