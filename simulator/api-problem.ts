import type { ApiGeneration } from './routes.js';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** A field a 400 answer complains about (v2 `badRequestDetail.fields`). */
export interface FieldViolation {
  field: string;
  description: string;
}

/**
 * An error answer of the API: status, `errorCode`, `detail`, `parameters`, and on v2 the
 * `badRequestDetail`. A value the handlers return, not an exception.
 */
export class ApiProblem {
  readonly status: number;
  /** Absent on 401, as Atlas leaves it out there. */
  readonly errorCode: string | undefined;
  readonly detail: string;
  readonly parameters: readonly unknown[];
  readonly fields: readonly FieldViolation[];

  constructor(options: {
    status: number;
    errorCode?: string;
    detail: string;
    parameters?: readonly unknown[];
    fields?: readonly FieldViolation[];
  }) {
    this.status = options.status;
    this.errorCode = options.errorCode;
    this.detail = options.detail;
    this.parameters = options.parameters ?? [];
    this.fields = options.fields ?? [];
  }

  /** The JSON body: `{detail, error, errorCode, parameters, reason}`, plus `badRequestDetail` on v2. */
  toBody(generation: ApiGeneration): Record<string, unknown> {
    return {
      ...(generation === 'atlas-v2' ? { badRequestDetail: { fields: this.fields } } : {}),
      detail: this.detail,
      error: this.status,
      ...(this.errorCode === undefined ? {} : { errorCode: this.errorCode }),
      parameters: this.parameters,
      reason: REASONS[this.status] ?? 'Error',
    };
  }
}

/** The error answers the simulator gives, worded as Atlas words them. */
export const problems = {
  unauthorized: (): ApiProblem =>
    new ApiProblem({ status: 401, detail: 'You are not authorized for this resource.' }),
  invalidGroupId: (id: string): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'INVALID_GROUP_ID',
      detail: `An invalid group ID ${id} was specified.`,
      parameters: [id],
    }),
  groupNotFound: (id: string): ApiProblem =>
    new ApiProblem({
      status: 404,
      errorCode: 'GROUP_NOT_FOUND',
      detail: `No group with ID ${id} exists.`,
      parameters: [id],
    }),
  invalidOrgId: (id: string): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'INVALID_ORG_ID',
      detail: `An invalid organization ID ${id} was specified.`,
      parameters: [id],
    }),
  orgNotFound: (id: string): ApiProblem =>
    new ApiProblem({
      status: 404,
      errorCode: 'ORG_NOT_FOUND',
      detail: `No organization with ID ${id} exists.`,
      parameters: [id],
    }),
  apiKeyNotFound: (id: string): ApiProblem =>
    new ApiProblem({
      status: 404,
      errorCode: 'API_KEY_NOT_FOUND',
      detail: `No API Key with ID ${id} exists.`,
      parameters: [id],
    }),
  serviceAccountNotFound: (clientId: string): ApiProblem =>
    new ApiProblem({
      status: 404,
      errorCode: 'SERVICE_ACCOUNT_NOT_FOUND',
      detail: `No Service Account with client ID ${clientId} exists.`,
      parameters: [clientId],
    }),
  /**
   * An `eventType` (or `excludedEventType`) Atlas does not know for the scope: 400 with the code the
   * OpenAPI document gives every Bad Request (`VALIDATION_ERROR`).
   */
  invalidEventType: (name: string, value: string, scope: 'project' | 'organization'): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'VALIDATION_ERROR',
      detail: `An invalid enumeration value ${value} was specified for ${name}: it is not an event type of ${scope === 'project' ? 'a project' : 'an organization'}.`,
      parameters: [name, value],
      fields: [{ field: name, description: `${value} is not a ${scope} event type` }],
    }),
  clusterNotFound: (clusterName: string, groupId: string): ApiProblem =>
    new ApiProblem({
      status: 404,
      errorCode: 'CLUSTER_NOT_FOUND',
      detail: `No cluster named ${clusterName} exists in group ${groupId}.`,
      parameters: [clusterName, groupId],
    }),
  /**
   * Database access history asked of a shared-tier (M0, M2, M5) or Flex cluster. The OpenAPI document
   * says only "You can't use this feature on tenant-tier clusters"; the status and code Atlas answers
   * with are not documented, so the simulator names the case with a code of its own.
   */
  tenantClusterUnsupported: (clusterName: string, tier: string): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'TENANT_CLUSTER_UNSUPPORTED',
      detail: `Cluster ${clusterName} is a ${tier} cluster: database access history is not available on tenant-tier clusters (M0, M2, M5) or Flex clusters.`,
      parameters: [clusterName],
    }),
  resourceNotFound: (path: string): ApiProblem =>
    new ApiProblem({
      status: 404,
      errorCode: 'RESOURCE_NOT_FOUND',
      detail: `Cannot find resource ${path}.`,
      parameters: [path],
    }),
  forbidden: (requirement: string): ApiProblem =>
    new ApiProblem({
      status: 403,
      errorCode: 'USER_UNAUTHORIZED',
      detail: `Current user is not authorized to perform this action: ${requirement}.`,
      parameters: [],
    }),
  ipNotOnAccessList: (ip: string): ApiProblem =>
    new ApiProblem({
      status: 403,
      errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST',
      detail: `IP address ${ip} is not allowed to access this resource.`,
      parameters: [ip],
    }),
  invalidAttribute: (name: string, description: string): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'INVALID_ATTRIBUTE',
      detail: `Invalid attribute ${name} specified: ${description}.`,
      parameters: [name],
      fields: [{ field: name, description }],
    }),
  /** A request body that is not a JSON object. */
  malformedJson: (): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'MALFORMED_JSON',
      detail: 'The request body is not a JSON object.',
    }),
  /** An alert configuration for an event type Atlas cannot alert on (not `alertable`), or no type at all. */
  invalidEventTypeForAlert: (value: string): ApiProblem =>
    new ApiProblem({
      status: 400,
      errorCode: 'INVALID_EVENT_TYPE_FOR_ALERT',
      detail: `Event type ${value} is not an event type an alert configuration can take.`,
      parameters: [value],
      fields: [{ field: 'eventTypeName', description: `${value} is not alertable` }],
    }),
  /**
   * A second integration of a type the project has already: Atlas holds one per type and project and
   * documents a 409 without naming its code, so the simulator names it.
   */
  integrationExists: (type: string, groupId: string): ApiProblem =>
    new ApiProblem({
      status: 409,
      errorCode: 'INTEGRATION_ALREADY_CONFIGURED',
      detail: `A ${type} integration is already configured for group ${groupId}.`,
      parameters: [type, groupId],
    }),
  methodNotAllowed: (method: string, path: string): ApiProblem =>
    new ApiProblem({
      status: 405,
      errorCode: 'METHOD_NOT_ALLOWED',
      detail: `Method ${method} is not allowed on ${path}.`,
      parameters: [method, path],
    }),
  notAcceptable: (): ApiProblem =>
    new ApiProblem({
      status: 406,
      errorCode: 'INVALID_VERSION_DATE',
      detail: 'Invalid accept header or version date.',
    }),
  versionGone: (version: string, path: string): ApiProblem =>
    new ApiProblem({
      status: 410,
      errorCode: 'VERSION_GONE',
      detail: `Version ${version} of ${path} is no longer available.`,
      parameters: [version, path],
    }),
  rateLimited: (): ApiProblem =>
    new ApiProblem({
      status: 429,
      errorCode: 'RATE_LIMITED',
      detail: 'You have exceeded the rate limit for this resource. Please wait and retry.',
    }),
  unexpected: (): ApiProblem =>
    new ApiProblem({ status: 500, errorCode: 'UNEXPECTED_ERROR', detail: 'Unexpected error.' }),
} as const;
