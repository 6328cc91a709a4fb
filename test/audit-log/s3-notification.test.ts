import { describe, expect, it } from 'vitest';
import { readS3Notification } from '../../shared/audit-log/s3-notification.js';

function record(key: string, eventName = 'ObjectCreated:Put', size: unknown = 1024): unknown {
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: 'eu-west-1',
    eventTime: '2026-11-28T01:00:00.000Z',
    eventName,
    s3: {
      bucket: { name: 'atlas-logs', arn: 'arn:aws:s3:::atlas-logs' },
      object: { key, size, sequencer: '0A1B2C' },
    },
  };
}

describe('readS3Notification', () => {
  it('reads the created objects, with their keys decoded, and leaves other events out', () => {
    const body = JSON.stringify({
      Records: [
        record('exports/payments/payments-main/host%3A27017/mongodb-audit-log/a+b.log.gz'),
        record('exports/payments/x/y/mongodb-audit-log/removed.log.gz', 'ObjectRemoved:Delete'),
      ],
    });

    expect(readS3Notification(body)).toEqual({
      kind: 'objects',
      objects: [
        {
          bucket: 'atlas-logs',
          key: 'exports/payments/payments-main/host:27017/mongodb-audit-log/a b.log.gz',
          size: 1024,
        },
      ],
    });
  });

  it("tells S3's test event apart", () => {
    expect(
      readS3Notification(
        JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'atlas-logs' }),
      ),
    ).toEqual({
      kind: 'test',
    });
  });

  it.each([
    ['not JSON', '{"Records": ['],
    ['no Records', '{}'],
    ['Records that are not a list', '{"Records": {}}'],
    ['too many records', JSON.stringify({ Records: Array.from({ length: 101 }, () => record('k')) })],
    ['a record of another service', JSON.stringify({ Records: [{ eventSource: 'aws:sqs' }] })],
    ['a size that is not a number', JSON.stringify({ Records: [record('k', 'ObjectCreated:Put', 'big')] })],
    ['a key that does not decode', JSON.stringify({ Records: [record('%E0%A4%A')] })],
    ['a key past 1024 characters', JSON.stringify({ Records: [record('k'.repeat(1025))] })],
  ])('calls %s unreadable, without throwing', (_name, body) => {
    expect(readS3Notification(body).kind).toBe('unreadable');
  });
});
