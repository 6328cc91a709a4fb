import type { Environment } from './atlas-options.js';
import type { BucketLister } from './audit-bucket-check.js';

/** A lister, or why none could be made. */
export type BucketListerResult =
  | { lister: BucketLister; problem?: undefined }
  | { lister?: undefined; problem: string };

/**
 * Makes a {@link BucketLister} over S3 (ListObjectsV2) with the environment's AWS credentials and
 * region. The S3 client is loaded only here, when an audit log export is to be checked: it is an
 * optional peer dependency of the package, and its absence is said rather than failed on.
 * `AWS_ENDPOINT_URL_S3` points it at another S3 (path-style addressing), as for an emulator.
 *
 * @example
 * ```ts
 * const { lister, problem } = await createS3BucketLister(process.env);
 * ```
 */
export async function createS3BucketLister(env: Environment): Promise<BucketListerResult> {
  let s3: typeof import('@aws-sdk/client-s3');
  try {
    // An optional peer dependency: only this check needs it, so an install without it still runs.
    s3 = await import('@aws-sdk/client-s3');
  } catch {
    return {
      problem:
        'the AWS S3 client is not installed: npm install @aws-sdk/client-s3 where atlas-audit-alerts is installed',
    };
  }
  const endpoint = env.AWS_ENDPOINT_URL_S3;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const client = new s3.S3Client({
    ...(region === undefined || region === '' ? {} : { region }),
    ...(endpoint === undefined || endpoint === '' ? {} : { endpoint, forcePathStyle: true }),
  });
  try {
    await client.config.region();
  } catch {
    client.destroy();
    return {
      problem:
        "no AWS region is set: export AWS_REGION=eu-west-1 (the stack's region), or use a profile that has one",
    };
  }
  return {
    lister: {
      async list(bucket, prefix, max, signal) {
        const answer = await client.send(
          new s3.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: max }),
          { abortSignal: signal },
        );
        return (answer.Contents ?? []).flatMap((object) =>
          object.Key === undefined ? [] : [{ key: object.Key, lastModified: object.LastModified }],
        );
      },
      close() {
        client.destroy();
      },
    },
  };
}
