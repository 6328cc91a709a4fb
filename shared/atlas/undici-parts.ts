import type { Agent as UndiciAgent, errors as undiciErrors } from 'undici';
import errorsModule from 'undici/lib/core/errors.js';
import AgentModule from 'undici/lib/dispatcher/agent.js';

/*
 * The parts of undici the client uses, imported from undici's own modules rather than its index: the
 * index is CommonJS, so a bundler keeps everything it requires (fetch, WebSocket, the HTTP cache,
 * the mock agents, EventSource), about 250 KiB of the poller's bundle that the client never runs.
 * The types are undici's public ones; the version is pinned by the lock file, and the bundle test
 * imports the bundle in a fresh Node process.
 */

/** undici's `Agent`: connection pools per origin, HTTP/1.1 keep-alive, `compose` for interceptors. */
export const Agent = AgentModule as unknown as typeof UndiciAgent;
export type Agent = UndiciAgent;

/** undici's error classes (`errors.BodyTimeoutError`...). */
export const errors = errorsModule as unknown as typeof undiciErrors;
