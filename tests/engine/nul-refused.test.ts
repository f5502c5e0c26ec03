import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClientDataService,
  createClientService,
  createInboundService,
  createSenderService,
  NUL_MESSAGE,
} from '@spillway/core/adapter';
import { hasClientStorage } from '@spillway/core/storage';
import { engineFixture } from '../support/engine-fixture.ts';

// Every call of the engine's services refuses the NUL character (U+0000) before any storage sees
// it, as HTTP refuses it in a body: PostgreSQL cannot store it in text or jsonb and failed such a
// write with its own "invalid byte sequence" error, while SQLite stored it. Run on both storages
// (SPILLWAY_TEST_STORAGE=postgres in CI's PostgreSQL suite).

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
beforeAll(async () => {
  f = await engineFixture({ balance: 1000 });
});
afterAll(() => f?.close());

const NUL = '\u0000';
const refusedAt = (path: string) => ({ code: 'validation_failed', details: [{ path, message: NUL_MESSAGE }] });

describe('the NUL character through the engine API', () => {
  it('is refused at the path of the member that holds it, and nothing is written', async () => {
    await expect(f.engine.accounts.create({ login: `mallory${NUL}`, password: 'long enough password' })).rejects.toMatchObject(
      refusedAt('login'),
    );
    expect(await f.engine.accounts.getByLogin('mallory')).toBeNull();
    await expect(f.engine.accounts.approveAlphaName(f.account.id, `Sh${NUL}op`)).rejects.toMatchObject(refusedAt('arguments[1]'));
    expect((await f.engine.accounts.listAlphaNames(f.account.id)).map((a) => a.name)).toEqual(['Shop']);

    const cascade = [{ toPhone: '491512345678', messages: [{ channel: 'sms', from: 'Shop', text: `one${NUL}two` }] }];
    await expect(f.engine.cascades.send(f.account.id, cascade as never)).rejects.toMatchObject(refusedAt('[0].messages[0].text'));
    await expect(f.engine.cascades.statusByGuid(f.account.id, `g${NUL}`)).rejects.toMatchObject(refusedAt('arguments[1]'));

    await expect(
      f.engine.receiveInbound({ channel: 'sms', phoneNumber: '491512345678', alphaName: 'Shop', text: `stop${NUL}` }),
    ).rejects.toMatchObject(refusedAt('text'));
  });

  it('is refused in a scheduled message’s change, which stays as it was', async () => {
    const scheduledAt = new Date(f.clock.now() + 3_600_000).toISOString();
    const sent = await f.engine.messages.send(f.account.id, {
      messages: [{ type: 'sms', from: 'Shop', to: '491512345679', text: 'later', scheduledAt }],
    });
    const id = sent.messages[0]!.messageId;
    await expect(f.engine.messages.update(f.account.id, id, { text: `soon${NUL}` })).rejects.toMatchObject(refusedAt('text'));
    expect((await f.storage.getMessage(id))!.steps[0]).toMatchObject({ text: 'later' });
  });

  it('is refused by the services built over the storage: senders, clients, client data, inbound', async () => {
    const storage = f.storage;
    if (!hasClientStorage(storage)) throw new Error('both storages keep client records');
    const deps = { storage, accounts: f.engine.accounts, clock: f.clock };
    const application = { alphaName: 'Shop2', companyName: `Shop${NUL} GmbH`, description: 'receipts' };
    await expect(createSenderService(deps).applyForAlphaName(f.account.id, application)).rejects.toMatchObject(refusedAt('companyName'));
    expect(await createSenderService(deps).list(f.account.id)).toEqual([]);
    await expect(createClientService(deps).addOrganization(f.account.id, { name: `Shop${NUL}`, taxId: '1234' })).rejects.toMatchObject(
      refusedAt('name'),
    );
    await expect(
      createClientDataService({ storage, clock: f.clock }).putPhoneData(f.account.id, '491512345678', { name: `Ann${NUL}` }),
    ).rejects.toMatchObject(refusedAt('name'));
    const inbound = createInboundService({ storage, clock: f.clock });
    await expect(inbound.receive(f.account.id, { alphaName: 'Shop', phoneNumber: '491512345678', text: `hi${NUL}` })).rejects.toMatchObject(
      refusedAt('text'),
    );
    expect(await storage.lastInboundAt(f.account.id, 'Shop', '491512345678')).toBeNull();
  });

  it('leaves calls without it alone', async () => {
    const account = await f.engine.accounts.create({ login: 'trent', password: 'long enough password' });
    expect(await f.engine.accounts.getByLogin('trent')).toMatchObject({ id: account.id });
    await expect(f.engine.cascades.statusByGuid(f.account.id, 'no-such-guid')).rejects.toMatchObject({ code: 'not_found' });
  });
});
