export {
  type AtlasAccessHistoryOptions,
  MAX_ACCESS_LOG_LINES,
  MIN_ACCESS_HISTORY_MS,
} from './access-history-query.js';
export {
  type AtlasAnswer,
  AtlasClient,
  type AtlasClientStats,
  type AtlasReadOptions,
} from './atlas-client.js';
export { AtlasList, type AtlasPage } from './atlas-list.js';
export {
  ATLAS_FLAVORS,
  type AtlasClientOptions,
  type AtlasCredentials,
  type AtlasFlavor,
  FLAVOR_ACCEPT,
  FLAVOR_PREFIXES,
  isLoopbackHost,
} from './client-options.js';
export type { DigestChallengeEvent, DigestChallengeReason } from './digest-auth-handler.js';
export {
  type AuthChallenge,
  DIGEST_ALGORITHMS,
  type DigestAlgorithm,
  type DigestChallenge,
  type DigestQop,
  parseAuthenticateHeader,
  selectDigestChallenge,
  toDigestChallenge,
} from './digest-challenge.js';
export { createDigestAuthInterceptor, type DigestAuthInterceptorOptions } from './digest-interceptor.js';
export {
  chooseQop,
  computeDigestResponse,
  type DigestResponseInput,
  formatDigestAuthorization,
  formatNonceCount,
} from './digest-response.js';
export {
  AtlasAuthError,
  AtlasConfigError,
  AtlasError,
  type AtlasErrorOptions,
  AtlasForbiddenError,
  AtlasInsecureUrlError,
  AtlasNetworkError,
  AtlasNotFoundError,
  AtlasRateLimitError,
  AtlasRequestError,
  AtlasResponseError,
  AtlasServerError,
  AtlasVersionError,
} from './errors.js';
export {
  type AtlasEventFilter,
  type AtlasListOptions,
  formatAtlasDate,
  MAX_ITEMS_PER_PAGE,
  toInstant,
} from './event-filter.js';
export type { HttpResponse } from './http-exchange.js';
export { maskPrivateKey } from './response-shapes.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
export { parseServerDate } from './server-date.js';
export {
  ServiceAccountTokenProvider,
  type ServiceAccountTokenProviderOptions,
  type TokenRequest,
} from './service-account-token-provider.js';
export type {
  AtlasAccessHistory,
  AtlasAccessListEntry,
  AtlasAccessLogLine,
  AtlasApiKey,
  AtlasApiKeyRole,
  AtlasCluster,
  AtlasClusterTier,
  AtlasEvent,
  AtlasEventDiff,
  AtlasEventTypeDetails,
  AtlasLink,
  AtlasProject,
  AtlasResource,
} from './types.js';
