export {
  ACCOUNT_DESTINATION_NAMES,
  type RoutedDestinationOptions,
  routedDestination,
} from './account-destination.js';
export { type DigestPlan, digestTakes, planDigests } from './digest-route.js';
export {
  type AttributeCondition,
  type CompiledPolicy,
  compileRouteMatch,
  digestClause,
  MAX_POLICY_COMBINATIONS,
  MAX_POLICY_KEYS,
  type PolicyClause,
  policyLimitProblem,
  RouteAttribute,
  type RouteAttributeName,
  type SnsFilterPolicy,
  toSnsFilterPolicy,
  unionPolicies,
} from './filter-policy.js';
export { filterPolicyMatches, UnsupportedFilterPolicyError } from './filter-policy-match.js';
export {
  type AccountDestinationKind,
  type Destination,
  type DestinationPlan,
  describeDestination,
  destinationKey,
  isAccountDestination,
  planRoutes,
  type RouteDecision,
  type RoutePlan,
  type RouteProblem,
  routeAlert,
  routeDestinations,
} from './route-plan.js';
export {
  ATLAS_ID,
  type DestinationKind,
  type DigestSettings,
  digestSettingsSchema,
  type EmailDestination,
  NAME_PATTERN,
  type RouteMatch,
  type RouteSettings,
  routeMatchSchema,
  routeSchema,
  routesSchema,
  type SlackDestination,
} from './route-settings.js';
