/**
 * Publishes batches of alerts to an outbox until a write fails, then prints on stdout, as JSON, the
 * fingerprints reported sent and the number of failures. Run it under a file size limit
 * (`ulimit -f`) to see what a full disk does to the outbox:
 *
 *   bash -c 'ulimit -f 48 && exec node --import tsx test/notify/support/fill-outbox.ts /tmp/outbox.jsonl'
 */
import { OutboxNotifier } from '../../../shared/notify/outbox-notifier.js';
import { makeAlert, NOW } from './alerts.js';
import { ManualClock } from './manual-clock.js';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: fill-outbox.ts OUTBOX_PATH');
const notifier = new OutboxNotifier({ path, clock: new ManualClock(NOW) });
const sent: string[] = [];
let failed = 0;
for (let batch = 0; batch < 200 && failed === 0; batch += 1) {
  const alerts = Array.from({ length: 3 }, (_, index) =>
    makeAlert({ fingerprint: `network-access-entry-added:${batch}-${index}` }),
  );
  for (const result of await notifier.publish(alerts)) {
    if (result.status === 'sent') sent.push(result.fingerprint);
    else failed += 1;
  }
}
// One more batch after the failure: it must not be glued to anything.
for (const result of await notifier.publish([
  makeAlert({ fingerprint: 'network-access-entry-added:last' }),
])) {
  if (result.status === 'sent') sent.push(result.fingerprint);
  else failed += 1;
}
process.stdout.write(JSON.stringify({ sent, failed }));
