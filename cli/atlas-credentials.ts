import type { AtlasClientOptions, AtlasCredentials } from '../shared/atlas/index.js';
import { DEFAULT_CONNECTION } from '../shared/poll/connections.js';
import { ATLAS_CREDENTIAL_ENV, type AtlasCommandOptions, type Environment } from './atlas-options.js';
import { UsageError } from './errors.js';

/**
 * Builds the Atlas client's options from the flags and the environment. Credentials come from
 * `MONGODB_ATLAS_PUBLIC_API_KEY` + `MONGODB_ATLAS_PRIVATE_API_KEY` (an API key, HTTP Digest) or
 * `MONGODB_ATLAS_CLIENT_ID` + `MONGODB_ATLAS_CLIENT_SECRET` (a service account); exactly one pair.
 *
 * @throws UsageError when neither pair, both pairs, or half a pair is set. The message names the
 *   variables, never their values.
 *
 * @example
 * ```ts
 * const client = new AtlasClient(resolveAtlasClientOptions(command.opts(), process.env));
 * ```
 */
export function resolveAtlasClientOptions(
  options: AtlasCommandOptions,
  env: Environment,
  connection?: string,
  names?: CredentialEnvNames,
): AtlasClientOptions {
  return {
    credentials: resolveAtlasCredentials(env, connection, names),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.flavor === undefined ? {} : { flavor: options.flavor }),
    ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    ...(options.maxAttempts === undefined ? {} : { retry: { maxAttempts: options.maxAttempts } }),
  };
}

/**
 * Reads the credentials from the environment (see {@link resolveAtlasClientOptions}). A connection
 * other than `default` reads the same variables with its name as a suffix (see
 * {@link connectionCredentialEnv}).
 *
 * @throws UsageError when neither pair, both pairs, or half a pair is set.
 *
 * @example
 * ```ts
 * resolveAtlasCredentials(process.env); // { kind: 'digest', publicKey, privateKey }
 * resolveAtlasCredentials(process.env, 'ops-manager'); // from MONGODB_ATLAS_PUBLIC_API_KEY_OPS_MANAGER...
 * ```
 */
export function resolveAtlasCredentials(
  env: Environment,
  connection?: string,
  names: CredentialEnvNames = connectionCredentialEnv(connection),
): AtlasCredentials {
  const value = (name: string): string | undefined => {
    const text = env[name];
    return text === undefined || text === '' ? undefined : text;
  };
  const { publicKey, privateKey, clientId, clientSecret } = names;
  const digest = [value(publicKey), value(privateKey)] as const;
  const service = [value(clientId), value(clientSecret)] as const;
  const digestSet = digest.some((part) => part !== undefined);
  const serviceSet = service.some((part) => part !== undefined);
  const of =
    connection === undefined || connection === DEFAULT_CONNECTION ? '' : ` for connection "${connection}"`;
  if (digestSet && serviceSet) {
    throw new UsageError(
      `both an API key (${publicKey}, ${privateKey}) and a service account (${clientId}, ${clientSecret}) are set${of}: unset one pair`,
    );
  }
  if (digestSet) {
    const [pub, priv] = digest;
    if (pub === undefined || priv === undefined) {
      throw new UsageError(
        `${pub === undefined ? publicKey : privateKey} is not set${of}: an API key needs both ${publicKey} and ${privateKey}`,
      );
    }
    return { kind: 'digest', publicKey: pub, privateKey: priv };
  }
  if (serviceSet) {
    const [id, secret] = service;
    if (id === undefined || secret === undefined) {
      throw new UsageError(
        `${id === undefined ? clientId : clientSecret} is not set${of}: a service account needs both ${clientId} and ${clientSecret}`,
      );
    }
    return { kind: 'service-account', clientId: id, clientSecret: secret };
  }
  throw new UsageError(
    `no Atlas credentials${of}: set ${publicKey} and ${privateKey} (an API key), or ${clientId} and ${clientSecret} (a service account)`,
  );
}

/**
 * The environment variables a connection's credentials are read from in local runs: those of
 * {@link ATLAS_CREDENTIAL_ENV}, with the connection's name in capitals (`-` as `_`) as a suffix;
 * without a connection (or for `default`), the variables themselves.
 *
 * @example
 * ```ts
 * connectionCredentialEnv('ops-manager').publicKey; // 'MONGODB_ATLAS_PUBLIC_API_KEY_OPS_MANAGER'
 * ```
 */
export function connectionCredentialEnv(connection?: string): CredentialEnvNames {
  if (connection === undefined || connection === DEFAULT_CONNECTION) return ATLAS_CREDENTIAL_ENV;
  const suffix = `_${connection.toUpperCase().replaceAll('-', '_')}`;
  return {
    publicKey: `${ATLAS_CREDENTIAL_ENV.publicKey}${suffix}`,
    privateKey: `${ATLAS_CREDENTIAL_ENV.privateKey}${suffix}`,
    clientId: `${ATLAS_CREDENTIAL_ENV.clientId}${suffix}`,
    clientSecret: `${ATLAS_CREDENTIAL_ENV.clientSecret}${suffix}`,
  };
}

/**
 * The variables of the key `webhooks apply` writes with, one with Project Owner: never the poller's,
 * which stays read-only. As {@link connectionCredentialEnv}, with the connection's name as a suffix.
 *
 * @example
 * ```ts
 * ownerCredentialEnv().publicKey; // 'ATLAS_AUDIT_ALERTS_OWNER_PUBLIC_API_KEY'
 * ```
 */
export function ownerCredentialEnv(connection?: string): CredentialEnvNames {
  const suffix =
    connection === undefined || connection === DEFAULT_CONNECTION
      ? ''
      : `_${connection.toUpperCase().replaceAll('-', '_')}`;
  return {
    publicKey: `ATLAS_AUDIT_ALERTS_OWNER_PUBLIC_API_KEY${suffix}`,
    privateKey: `ATLAS_AUDIT_ALERTS_OWNER_PRIVATE_API_KEY${suffix}`,
    clientId: `ATLAS_AUDIT_ALERTS_OWNER_CLIENT_ID${suffix}`,
    clientSecret: `ATLAS_AUDIT_ALERTS_OWNER_CLIENT_SECRET${suffix}`,
  };
}

/** The names of the four credential variables of one connection. */
export type CredentialEnvNames = Readonly<Record<keyof typeof ATLAS_CREDENTIAL_ENV, string>>;
