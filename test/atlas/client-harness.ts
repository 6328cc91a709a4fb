import { AtlasClient } from '../../shared/atlas/atlas-client.js';
import type { AtlasClientOptions } from '../../shared/atlas/client-options.js';
import type { Logger } from '../../shared/logger.js';
import { type DigestServer, type DigestServerOptions, startDigestServer } from '../support/digest-server.js';
import { ManualClock } from './manual-clock.js';

export const PUBLIC_KEY = 'test-public-key';
export const PRIVATE_KEY = 'fake-private-key-for-tests';
export const CLIENT_ID = 'mdb_sa_id_fake-client-id';
export const CLIENT_SECRET = 'fake+client/secret%for:tests';

/** A log line as the recording logger kept it. */
export interface LogLine {
  level: string;
  message: string;
  attributes: Record<string, unknown> | undefined;
}

export interface ClientHarness {
  server: DigestServer;
  client: AtlasClient;
  clock: ManualClock;
  logs: LogLine[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  server?: DigestServerOptions;
  client?: Partial<AtlasClientOptions>;
  /** Use a service account instead of an API key. */
  serviceAccount?: boolean;
}

/** A logger that keeps every line, to assert on what would have been logged. */
export function recordingLogger(lines: LogLine[]): Logger {
  const record =
    (level: string) =>
    (message: string, attributes?: Record<string, unknown>): void => {
      lines.push({ level, message, attributes });
    };
  return { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

/**
 * Starts the test digest server and a client pointed at it, with a manual clock, fixed jitter (half the
 * ceiling) and a recording logger.
 */
export async function startClientHarness(options: HarnessOptions = {}): Promise<ClientHarness> {
  const server = await startDigestServer({
    username: PUBLIC_KEY,
    password: PRIVATE_KEY,
    ...(options.serviceAccount
      ? { auth: 'oauth' as const, oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } }
      : {}),
    ...options.server,
  });
  const clock = new ManualClock();
  const logs: LogLine[] = [];
  const client = new AtlasClient({
    baseUrl: server.baseUrl,
    flavor: 'ops-manager',
    credentials: options.serviceAccount
      ? { kind: 'service-account', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }
      : { kind: 'digest', publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY },
    clock,
    random: () => 0.5,
    logger: recordingLogger(logs),
    ...options.client,
  });
  return {
    server,
    client,
    clock,
    logs,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
