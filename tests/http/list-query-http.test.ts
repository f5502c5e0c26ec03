import { beforeAll, describe, expect, it } from 'vitest';
import { serverOnTestDatabase } from '../support/test-database.ts';

// The query parameters of the list routes, as a new user's run sent them: axios/qs brackets,
// either casing, a typo, a word where a number goes. None may be silently ignored.
const ADMIN_KEY = 'admin-key-0123456789abcdef';

const s = serverOnTestDatabase('list_query', { SPILLWAY_ADMIN_KEY: ADMIN_KEY });

const json = async (res: Response) => (await res.json()) as any;
const admin = (path: string) => s.call(path, { auth: 'none', headers: { 'x-admin-key': ADMIN_KEY } });
const kinds = async (query: string) => {
  const res = await s.call(`/api/AlphaName/wallet/info?${query}`);
  expect(res.status).toBe(200);
  return [...new Set((await json(res)).items.map((t: any) => t.transactionType))];
};

describe('GET /api/AlphaName/wallet/info', () => {
  beforeAll(async () => {
    // A charge beside the bootstrap top-up.
    const sent = await s.call('/bat/messagelist', { json: { messages: [{ from: 'Acme', to: '99900000000', type: 'sms', text: 'hi' }] } });
    expect(sent.status).toBe(200);
  });

  it('takes TransactionTypes[] (axios, qs brackets) and TransactionTypes[n] (qs indices) as TransactionTypes', async () => {
    expect(await kinds('')).toEqual(expect.arrayContaining(['topup', 'charge']));
    expect(await kinds('TransactionTypes[]=topup')).toEqual(['topup']);
    expect(await kinds('TransactionTypes%5B%5D=charge')).toEqual(['charge']);
    expect(await kinds('TransactionTypes[0]=charge&TransactionTypes[1]=refund')).toEqual(['charge']);
    expect(await kinds('TransactionTypes[]=topup&TransactionTypes[]=charge')).toEqual(expect.arrayContaining(['topup', 'charge']));
    expect(await kinds('transactionTypes=topup')).toEqual(['topup']);
    const bad = await s.call('/api/AlphaName/wallet/info?TransactionTypes[]=gift');
    expect(bad.status).toBe(400);
    expect((await json(bad)).details).toEqual([{ path: 'TransactionTypes[0]', message: expect.stringContaining('"gift"') }]);
  });

  it('refuses a parameter it does not know, naming it and the ones it takes, rather than answering everything', async () => {
    const res = await s.call('/api/AlphaName/wallet/info?TransactionType=topup');
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ error: 'validation_failed', status: 400 });
    expect(body.details).toEqual([{ path: 'TransactionType', message: expect.stringContaining('TransactionTypes') }]);
    expect(body.message).toContain('TransactionType');
  });
});

describe('the page parameters of every paginated list', () => {
  beforeAll(async () => {
    for (const n of [1, 2, 3])
      expect((await s.call('/organizations', { json: { name: `Org ${n}`, taxId: `770000010${n}` } })).status).toBe(200);
  });

  const names = async (query: string) => {
    const res = await s.call(`/organizations?${query}`);
    expect(res.status).toBe(200);
    return (await json(res)).map((o: any) => o.name);
  };

  it('takes Page and PageSize in either casing on /organizations and on wallet/info alike', async () => {
    for (const query of ['page=2&pageSize=1', 'Page=2&PageSize=1', 'PAGE=2&pagesize=1']) expect(await names(query)).toEqual(['Org 2']);
    for (const query of ['page=1&pageSize=1', 'Page=1&PageSize=1']) {
      const wallet = await json(await s.call(`/api/AlphaName/wallet/info?${query}`));
      expect(wallet).toMatchObject({ page: 1, pageSize: 1 });
      expect(wallet.items).toHaveLength(1);
    }
  });

  it('refuses two different values of one parameter, and takes the same value twice', async () => {
    // Named as the route documents it.
    for (const [path, name] of [
      ['/organizations', 'page'],
      ['/api/AlphaName/wallet/info', 'Page'],
    ] as const) {
      const res = await s.call(`${path}?Page=1&page=2`);
      expect(res.status).toBe(400);
      expect((await json(res)).details).toEqual([{ path: name, message: expect.stringMatching(/"1".*"2"/) }]);
      expect((await s.call(`${path}?Page=1&page=1`)).status).toBe(200);
    }
    expect(await names('page=3&page=3&pageSize=1')).toEqual(['Org 3']);
  });

  it('says what a bad page number was and what it must be, not "received NaN"', async () => {
    for (const [path, name] of [
      ['/organizations', 'page'],
      ['/api/AlphaName/wallet/info', 'Page'],
    ] as const) {
      const res = await s.call(`${path}?Page=abc`);
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.details).toEqual([{ path: name, message: 'must be a whole number of 1 or more, got "abc"' }]);
      expect(body.message).not.toContain('NaN');
      expect(body.message).toContain('"abc"');
      const big = await json(await s.call(`${path}?PageSize=5000`));
      expect(big.details).toEqual([{ path: name === 'page' ? 'pageSize' : 'PageSize', message: 'must be at most 1000, got "5000"' }]);
      for (const bad of ['0', '0x2', '1e1', '1.5', '-1']) {
        const res = await json(await s.call(`${path}?page=${bad}`));
        expect(res.details).toEqual([{ path: name, message: `must be a whole number of 1 or more, got "${bad}"` }]);
      }
    }
  });

  it('refuses an unknown parameter of /organizations', async () => {
    const res = await s.call('/organizations?size=1');
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([{ path: 'size', message: expect.stringContaining('pageSize') }]);
  });
});

describe('GET /admin/sender-applications', () => {
  it('filters by accountId, and refuses a parameter it does not know instead of answering every account', async () => {
    const sub = await json(await s.call('/api/client/provision', { json: { login: 'filter-sub', password: 'sub-password-1' } }));
    const apply = (key: string | undefined, alphaName: string) =>
      s.call('/api/AlphaName/sms/application', {
        json: { alphaName, companyName: 'Shop Ltd', description: 'Receipts' },
        ...(key ? { headers: { 'x-authorization-key': key } } : {}),
      });
    expect((await apply(undefined, 'MineShop')).status).toBe(200);
    expect((await apply(sub.apiKey, 'SubShop')).status).toBe(200);

    const all = await json(await admin('/admin/sender-applications'));
    expect(all.map((a: any) => a.name).sort()).toEqual(['MineShop', 'SubShop']);
    const theirs = await json(await admin(`/admin/sender-applications?accountId=${sub.clientId}`));
    expect(theirs.map((a: any) => [a.name, a.accountId])).toEqual([['SubShop', sub.clientId]]);
    const pending = await json(await admin(`/admin/sender-applications?accountId=${sub.clientId}&status=pending&kind=alpha_name`));
    expect(pending.map((a: any) => a.name)).toEqual(['SubShop']);
    expect(await json(await admin(`/admin/sender-applications?accountId=${sub.clientId}&status=approved`))).toEqual([]);
    expect(await json(await admin('/admin/sender-applications?accountId=999999'))).toEqual([]);

    const bad = await admin('/admin/sender-applications?accountId=abc');
    expect(bad.status).toBe(400);
    expect((await json(bad)).details).toEqual([{ path: 'accountId', message: 'must be a whole number of 1 or more, got "abc"' }]);
    const typo = await admin('/admin/sender-applications?account=2');
    expect(typo.status).toBe(400);
    expect((await json(typo)).details).toEqual([{ path: 'account', message: expect.stringContaining('accountId') }]);
  });
});

describe('the lists without pages', () => {
  it('refuse a parameter they do not take, as the paginated ones do, rather than answering everything', async () => {
    const lists = [
      ['/api/clientsenders?kind=bot', 'kind', 'it takes none'],
      ['/api/routes?name=default', 'name', 'it takes none'],
      ['/api/routes/bindings?alphaName=Acme', 'alphaName', 'it takes none'],
      ['/api/client/clients?type=sub', 'type', 'it takes kind'],
      ['/api/AlphaName/sms/status?alpha=Acme', 'alpha', 'it takes dateFrom, dateTo, alphaName'],
      ['/api/Costs/bots?bot=x', 'bot', 'it takes date, bot_name, country'],
      ['/chat_bot/bot_receiver/phone?phoneNumber=99900000000&bot=x', 'bot', 'it takes phoneNumber, botName'],
    ] as const;
    for (const [path, name, takes] of lists) {
      const res = await s.call(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect((await json(res)).details).toEqual([{ path: name, message: `is not a parameter of this route; ${takes}` }]);
    }
    const adminList = await admin('/admin/accounts/1/alpha-names?status=approved');
    expect(adminList.status).toBe(400);
    // What they take still works, in either casing as on the paginated lists.
    expect((await s.call('/api/client/clients?Kind=sub')).status).toBe(200);
    expect((await s.call('/api/AlphaName/sms/status?AlphaName=Acme')).status).toBe(200);
    expect((await s.call('/api/clientsenders')).status).toBe(200);
  });
});
