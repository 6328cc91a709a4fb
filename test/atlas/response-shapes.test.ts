import { describe, expect, it } from 'vitest';
import {
  maskPrivateKey,
  readAccessListEntry,
  readApiKey,
  readEvent,
  readListPage,
  readOrganization,
  readProject,
  readServiceAccount,
  unwrapEnvelope,
} from '../../shared/atlas/response-shapes.js';

describe('unwrapEnvelope', () => {
  it('takes the content out of a single result in an envelope', () => {
    // Act
    const unwrapped = unwrapEnvelope({ status: 200, content: { id: 'x' } });

    // Assess
    expect(unwrapped).toStrictEqual({ status: 200, body: { id: 'x' } });
  });

  it('drops the status of a list in an envelope and keeps its other fields', () => {
    // Act
    const unwrapped = unwrapEnvelope({ status: 200, results: [1], totalCount: 1 });

    // Assess
    expect(unwrapped).toStrictEqual({ status: 200, body: { results: [1], totalCount: 1 } });
  });

  it.each([
    ['a body without a status', { id: 'x' }],
    ['a status that is not a number', { status: '200', content: { id: 'x' } }],
    ['a status that is not an integer', { status: 200.5, content: { id: 'x' } }],
    ['content next to other fields', { status: 200, content: { id: 'x' }, id: 'y' }],
    ['content that is not an object', { status: 200, content: 'x' }],
    ['a status with neither content nor results', { status: 200, id: 'x' }],
    ['an array', [1, 2]],
    ['null', null],
  ])('leaves %s unchanged, with no status', (_, body) => {
    // Act
    const unwrapped = unwrapEnvelope(body);

    // Assess
    expect(unwrapped).toStrictEqual({ status: undefined, body });
  });
});

describe('readListPage', () => {
  it('keeps results, well-formed links and the total count', () => {
    // Prepare
    const body = {
      results: [{ id: 'a' }],
      links: [{ rel: 'next', href: 'https://x/2' }, { rel: 'self' }, { href: 'https://x/1' }, 'link', null],
      totalCount: 7,
    };

    // Act
    const page = readListPage(body);

    // Assess
    expect(page).toStrictEqual({
      ok: true,
      value: { results: [{ id: 'a' }], links: [{ rel: 'next', href: 'https://x/2' }], totalCount: 7 },
    });
  });

  it('reads absent links and a total count that is not a number as none', () => {
    // Act
    const page = readListPage({ results: [], links: 'none', totalCount: '7' });

    // Assess
    expect(page).toStrictEqual({ ok: true, value: { results: [], links: [], totalCount: undefined } });
  });

  it.each([[{ results: 'x' }], [{}], [[]], [null]])('says what is wrong with %j', (body) => {
    // Act
    const page = readListPage(body);

    // Assess
    expect(page).toStrictEqual({ ok: false, problem: 'a list page without a results array' });
  });
});

describe('the item readers', () => {
  it('reads any object as an event and anything else as a problem', () => {
    // Act
    const results = [readEvent({ id: 'e' }), readEvent([]), readEvent('e'), readEvent(null)];

    // Assess
    expect(results).toStrictEqual([
      { ok: true, value: { id: 'e' } },
      { ok: false, problem: 'an event that is not an object' },
      { ok: false, problem: 'an event that is not an object' },
      { ok: false, problem: 'an event that is not an object' },
    ]);
  });

  it('reads any object as an access-list entry and anything else as a problem', () => {
    // Act
    const results = [readAccessListEntry({ cidrBlock: '0.0.0.0/0' }), readAccessListEntry([1])];

    // Assess
    expect(results).toStrictEqual([
      { ok: true, value: { cidrBlock: '0.0.0.0/0' } },
      { ok: false, problem: 'an access-list entry that is not an object' },
    ]);
  });

  it('reads a project only with a string id', () => {
    // Act
    const results = [readProject({ id: 'p', name: 'prod' }), readProject({ id: 1 }), readProject('p')];

    // Assess
    expect(results).toStrictEqual([
      { ok: true, value: { id: 'p', name: 'prod' } },
      { ok: false, problem: 'a project without a string id' },
      { ok: false, problem: 'a project without a string id' },
    ]);
  });

  it('reads an organization only with a string id', () => {
    // Act
    const results = [
      readOrganization({ id: 'o', name: 'Acme Corp' }),
      readOrganization({ id: 1, name: 'Acme Corp' }),
      readOrganization({ name: 'Acme Corp' }),
      readOrganization('o'),
    ];

    // Assess
    expect(results).toStrictEqual([
      { ok: true, value: { id: 'o', name: 'Acme Corp' } },
      { ok: false, problem: 'an organization without a string id' },
      { ok: false, problem: 'an organization without a string id' },
      { ok: false, problem: 'an organization without a string id' },
    ]);
  });

  it('reads an API key only with a string id', () => {
    // Act
    const results = [readApiKey({ id: 1 }), readApiKey(null), readApiKey([])];

    // Assess
    expect(results.every((result) => !result.ok && result.problem === 'an API key without a string id')).toBe(
      true,
    );
  });

  it('masks the private key of an API key, and hides one that is not a string', () => {
    // Prepare
    const key = { id: 'k', privateKey: 'fake-private-key-0000-abcd' };

    // Act
    const masked = readApiKey(key);
    const odd = readApiKey({ id: 'k', privateKey: { value: 'fake' } });
    const none = readApiKey({ id: 'k' });

    // Assess
    expect(masked).toStrictEqual({ ok: true, value: { id: 'k', privateKey: '********abcd' } });
    expect(key.privateKey).toBe('fake-private-key-0000-abcd');
    expect(odd).toStrictEqual({ ok: true, value: { id: 'k', privateKey: '********' } });
    expect(none).toStrictEqual({ ok: true, value: { id: 'k' } });
  });

  it('leaves out the roles of an API key that are not objects, or roles that are not a list, and counts them', () => {
    // Prepare
    const owner = { roleName: 'ORG_OWNER', orgId: '5f4e3d2c1b0a998877665544' };

    // Act
    const listed = readApiKey({ id: 'k', roles: [null, owner, 'GROUP_OWNER', 7] });
    const text = readApiKey({ id: 'k', roles: 'ORG_OWNER' });
    const clean = readApiKey({ id: 'k', roles: [owner] });

    // Assess
    expect(listed).toStrictEqual({ ok: true, value: { id: 'k', roles: [owner] }, dropped: 3 });
    expect(text).toStrictEqual({ ok: true, value: { id: 'k' }, dropped: 1 });
    expect(clean).toStrictEqual({ ok: true, value: { id: 'k', roles: [owner] } });
  });
});

describe('readServiceAccount', () => {
  it('reads a service account only with a string clientId', () => {
    // Act
    const results = [
      readServiceAccount({ clientId: 1 }),
      readServiceAccount({ name: 'x' }),
      readServiceAccount(null),
    ];

    // Assess
    expect(results).toStrictEqual([
      { ok: false, problem: 'a service account without a string clientId' },
      { ok: false, problem: 'a service account without a string clientId' },
      { ok: false, problem: 'a service account without a string clientId' },
    ]);
  });

  it('drops the secrets and the roles that are not text, and keeps the other fields', () => {
    // Prepare
    const account = {
      clientId: 'mdb_sa_id_fake',
      name: 'poller',
      roles: ['ORG_OWNER', 7, null, 'ORG_READ_ONLY'],
      secrets: [{ id: 's1', secret: 'fake-secret-for-tests' }],
    };

    // Act
    const result = readServiceAccount(account);

    // Assess
    expect(result).toStrictEqual({
      ok: true,
      value: { clientId: 'mdb_sa_id_fake', name: 'poller', roles: ['ORG_OWNER', 'ORG_READ_ONLY'] },
      dropped: 2,
    });
  });

  it('gives no roles when the account has none, or roles that are not a list', () => {
    // Act
    const none = readServiceAccount({ clientId: 'c' });
    const text = readServiceAccount({ clientId: 'c', roles: 'ORG_OWNER' });

    // Assess
    expect(none).toStrictEqual({ ok: true, value: { clientId: 'c' } });
    expect(text).toStrictEqual({ ok: true, value: { clientId: 'c' }, dropped: 1 });
  });
});

describe('maskPrivateKey', () => {
  it('shows the last four characters of a key of 16 or more, and none of a shorter one', () => {
    // Act
    const masks = [maskPrivateKey('0123456789abcdef'), maskPrivateKey('0123456789abcde')];

    // Assess
    expect(masks).toEqual(['********cdef', '********']);
  });
});
