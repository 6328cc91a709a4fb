/**
 * atlas-audit-alerts as a CDK construct: `import { AtlasAuditAlerts } from 'atlas-audit-alerts'`.
 */
export {
  AtlasAuditAlerts,
  type AtlasAuditAlertsProps,
  type AtlasAuditAlertsSettings,
} from './atlas-audit-alerts.js';
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
  LambdaBundlesMissingError,
  NothingToPollError,
  PollerEnvironmentTooLargeError,
} from './errors.js';
export type { RulePackFile } from './rule-pack-file.js';
