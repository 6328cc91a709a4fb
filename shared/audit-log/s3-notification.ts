import * as z from 'zod';

/** An object an S3 event notification names. */
export interface NotifiedObject {
  bucket: string;
  /** The object's key, decoded (S3 writes it URL-encoded, spaces as `+`). */
  key: string;
  size: number | undefined;
}

/** What a queue message from S3 says: objects created, a test event, or something else. */
export type S3Notification =
  | { kind: 'objects'; objects: NotifiedObject[] }
  | { kind: 'test' }
  | { kind: 'unreadable'; reason: string };

const MAX_KEY_LENGTH = 1024;

const recordSchema = z.object({
  eventSource: z.literal('aws:s3'),
  eventName: z.string().max(100),
  s3: z.object({
    bucket: z.object({ name: z.string().min(3).max(63) }),
    object: z.object({
      key: z
        .string()
        .min(1)
        .max(MAX_KEY_LENGTH * 3),
      size: z.number().int().nonnegative().optional(),
    }),
  }),
});

const notificationSchema = z.object({ Records: z.array(z.unknown()).max(100) });
const testEventSchema = z.object({ Event: z.literal('s3:TestEvent') });

/**
 * Reads the body of a queue message that S3 sent for new objects (an S3 event notification). Records
 * of other events (a removal) are left out; S3's test event, sent when the notification is set up, is
 * told apart. Never throws: a body that is not a notification is `unreadable`, with why, for the caller
 * to count and drop, since reading it again would not change it.
 *
 * @example
 * ```ts
 * const notification = readS3Notification(record.body);
 * if (notification.kind === 'objects') for (const { bucket, key } of notification.objects) read(bucket, key);
 * ```
 */
export function readS3Notification(body: string): S3Notification {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'unreadable', reason: 'the message is not JSON' };
  }
  if (testEventSchema.safeParse(parsed).success) return { kind: 'test' };
  const notification = notificationSchema.safeParse(parsed);
  if (!notification.success)
    return { kind: 'unreadable', reason: 'the message has no Records list of at most 100' };
  const objects: NotifiedObject[] = [];
  for (const raw of notification.data.Records) {
    const record = recordSchema.safeParse(raw);
    if (!record.success) return { kind: 'unreadable', reason: 'a record is not an S3 event record' };
    if (!record.data.eventName.startsWith('ObjectCreated:')) continue;
    const key = decodeKey(record.data.s3.object.key);
    if (key === undefined) return { kind: 'unreadable', reason: 'a record names a key that does not decode' };
    objects.push({ bucket: record.data.s3.bucket.name, key, size: record.data.s3.object.size });
  }
  return { kind: 'objects', objects };
}

function decodeKey(encoded: string): string | undefined {
  try {
    const key = decodeURIComponent(encoded.replace(/\+/g, ' '));
    return key.length > MAX_KEY_LENGTH ? undefined : key;
  } catch {
    return undefined;
  }
}
