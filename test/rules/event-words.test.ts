import { describe, expect, it } from 'vitest';
import { eventTypeWords } from '../../shared/rules/event-words.js';

describe('eventTypeWords', () => {
  it.each([
    ['TEAM_CREATED', 'Team created'],
    ['TEAM_REMOVED_FROM_GROUP', 'Team removed from project'],
    ['REMOVED_FROM_TEAM', 'Removed from team'],
    ['ALERT_CONFIG_DELETED_AUDIT', 'Alert config deleted'],
    ['ORG_CONNECTED_TO_VERCEL', 'Organization connected to Vercel'],
    ['CLOUD_PROVIDER_ACCESS_AWS_IAM_ROLE_ADDED', 'Cloud provider access AWS IAM role added'],
    ['CUSTOMER_X509_CRL_UPDATED', 'Customer X.509 CRL updated'],
    ['MONGODB_ROLE_ADDED', 'MongoDB role added'],
    ['AUDIT', 'Audit'],
  ])('reads %s as "%s"', (type, words) => {
    // Act
    const result = eventTypeWords(type);

    // Assess
    expect(result).toBe(words);
  });

  it('reads nothing that is not an upper-case event type name', () => {
    // Prepare
    const values = [
      undefined,
      42,
      '',
      'team_created',
      'TEAM CREATED',
      '_TEAM',
      `${'A'.repeat(129)}`,
      '<!here>',
    ];

    // Act
    const results = values.map(eventTypeWords);

    // Assess
    expect(results).toEqual(values.map(() => undefined));
  });
});
