/**
 * The shapes of what a Lambda SQS event source mapping delivers and expects back, as far as the
 * worker reads them (the `aws-lambda` type package is not needed for these few fields).
 */

/** One message as the event source mapping hands it to the function. */
export interface SqsRecord {
  messageId: string;
  /** Identifies this receipt of the message: visibility changes and deletes use it. */
  receiptHandle: string;
  body: string;
  attributes: {
    /** How many times the message was received, this time included. */
    ApproximateReceiveCount: string;
    SentTimestamp: string;
    /** FIFO queues only. */
    MessageGroupId?: string;
    MessageDeduplicationId?: string;
    [name: string]: string | undefined;
  };
  messageAttributes: Record<string, unknown>;
  md5OfBody: string;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

/** The event a function behind an SQS event source mapping receives. */
export interface SqsEvent {
  Records: SqsRecord[];
}

/**
 * The answer of a function whose event source mapping has `ReportBatchItemFailures`: the messages
 * listed are returned to the queue, every other one of the batch is deleted.
 */
export interface SqsBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}
