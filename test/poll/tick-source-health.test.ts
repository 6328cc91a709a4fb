import { afterEach, describe, expect, it } from 'vitest';
import { sourceHealthDetails } from '../../shared/poll/index.js';
import { publishedSchemas, schemaErrors } from '../notify/support/detail-schemas.js';
import { outcomeOf } from './support/assertions.js';
import { ids, MINUTE, type PollFixture, startPollFixture } from './support/poll-fixture.js';
import { storeKinds } from './support/store-kinds.js';

const PROJECT = `project:${ids.project}`;
const FOREIGN = `project:${ids.foreignProject}`;
const EVENTS_ROUTE = 'GET /groups/{groupId}/events';

describe.each(storeKinds())('source health changes ($name)', ({ factory }) => {
  let fixture: PollFixture | undefined;

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('says a source failing once, recovered once, and nothing while it stays as it was', async () => {
    fixture = await startPollFixture({ store: factory, config: { sources: { projectIds: [ids.project] } } });
    const healthy = await fixture.tick();
    fixture.sim.setFaults({ schedule: [{ kind: 'rateLimited', count: 20 }], routes: [EVENTS_ROUTE] });
    fixture.clock.advance(MINUTE);
    const failing = await fixture.tick();
    fixture.clock.advance(MINUTE);
    const stillFailing = await fixture.tick();
    fixture.sim.setFaults({ schedule: [] });
    fixture.clock.advance(MINUTE);
    const recovered = await fixture.tick();
    fixture.clock.advance(MINUTE);
    const after = await fixture.tick();

    expect(outcomeOf(healthy, PROJECT).health).toBeUndefined();
    expect(outcomeOf(failing, PROJECT)).toMatchObject({ status: 'failed', health: 'failing' });
    expect(outcomeOf(stillFailing, PROJECT)).toMatchObject({ status: 'failed' });
    expect(outcomeOf(stillFailing, PROJECT).health).toBeUndefined();
    expect(outcomeOf(recovered, PROJECT)).toMatchObject({ status: 'ok', health: 'recovered' });
    expect(outcomeOf(after, PROJECT).health).toBeUndefined();
    const details = [...sourceHealthDetails(failing), ...sourceHealthDetails(recovered)];
    expect(details.map((detail) => [detail.state, detail.source, detail.error?.code ?? null])).toEqual([
      ['failing', PROJECT, 'RATE_LIMITED'],
      ['recovered', PROJECT, null],
    ]);
    expect(details.flatMap((detail) => schemaErrors(publishedSchemas.sourceHealth, detail))).toEqual([]);
  });

  it('says once that Atlas refused the credentials of a source', async () => {
    fixture = await startPollFixture({
      store: factory,
      config: { sources: { projectIds: [ids.project, ids.foreignProject] } },
    });

    const first = await fixture.tick();
    fixture.clock.advance(MINUTE);
    const second = await fixture.tick();

    expect(outcomeOf(first, FOREIGN)).toMatchObject({
      status: 'failed',
      httpStatus: 403,
      health: 'credentials-refused',
    });
    expect(outcomeOf(second, FOREIGN).health).toBeUndefined();
    expect(sourceHealthDetails(first)).toEqual([
      expect.objectContaining({ state: 'credentials-refused', source: FOREIGN, connection: 'default' }),
    ]);
  });
});
