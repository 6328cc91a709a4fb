import * as z from 'zod';

/**
 * The AWS Chatbot (Amazon Q Developer in chat applications) custom notification format, as its guide
 * documents it ("Custom notifications", event schema and parameter details). Chatbot drops, without an
 * error anywhere, an SNS message whose `default` text is not in this format, so every payload this
 * project builds is checked against this schema: by the validator before sending, and by the tests.
 *
 * Required: `version` "1.0", `source` "custom", `content.description`. `textType` may only be
 * `client-markdown`. The guide caps `title` at 250 and `description` at 8,000 characters. It gives no
 * limits for the other fields; this project keeps them short on its own (see `chatbot-formatter.ts`).
 * The objects are strict: a key the format does not name is an error here, because what Chatbot does
 * with one is not documented.
 */

export const CHATBOT_TITLE_MAX_LENGTH = 250;
export const CHATBOT_DESCRIPTION_MAX_LENGTH = 8_000;

export const chatbotNotificationSchema = z.strictObject({
  version: z.literal('1.0'),
  source: z.literal('custom'),
  /** Unique event identifier. */
  id: z.string().min(1).optional(),
  content: z.strictObject({
    textType: z.literal('client-markdown').optional(),
    title: z.string().max(CHATBOT_TITLE_MAX_LENGTH).optional(),
    description: z.string().min(1).max(CHATBOT_DESCRIPTION_MAX_LENGTH),
    /** Shown as a list under the description. */
    nextSteps: z.array(z.string()).optional(),
    /** Shown as tags. */
    keywords: z.array(z.string()).optional(),
  }),
  metadata: z
    .strictObject({
      /** Notifications with the same thread id are threaded together in the channel. */
      threadId: z.string().min(1).optional(),
      /** The short text of the top-level notification and of mobile push notifications. */
      summary: z.string().optional(),
      /** Matched by the criteria of custom action buttons. */
      eventType: z.string().optional(),
      relatedResources: z.array(z.string()).optional(),
      /** Free key-value pairs, strings only; custom actions can read them as variables. */
      additionalContext: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

/** An AWS Chatbot custom notification. */
export type ChatbotNotification = z.infer<typeof chatbotNotificationSchema>;
