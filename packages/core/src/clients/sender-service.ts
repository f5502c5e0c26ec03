import type { Clock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import { SpillwayError } from '../errors.ts';
import type { AlphaNameWithdrawal, ClientStorage } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { AlphaName } from '../types/account.ts';
import type { ChannelId } from '../types/channel.ts';
import type { ApplicationStatus, SenderApplication, SenderKind } from '../types/client.ts';
import { alphaNameStatistics } from './alpha-name-statistics.ts';
import type { AlphaNameStatistics } from './alpha-name-statistics.ts';
import {
  alphaNameApplicationSchema,
  alphaNameRevocationSchema,
  applicationDecisionSchema,
  botApplicationSchema,
  botRevocationSchema,
  parseRequest,
} from './client-requests.ts';
import { storableCalls } from '../validation/storable-calls.ts';

/** One sender of an account and its state (`GET /api/clientsenders`). */
export interface SenderState {
  name: string;
  kind: SenderKind;
  channels: ChannelId[];
  status: ApplicationStatus;
  /** The reason of a rejection. */
  reason: string | null;
  /** The application behind the state; null for a name approved by configuration or the CLI. */
  applicationId: number | null;
}

/** Longest period of the alpha-name statistics. */
export const MAX_STATISTICS_DAYS = 366;
const DAY = 86_400_000;

/** An alpha-name an operator revoked (or withdrew from some channels), from the account and the sub-clients it was shared with. */
export interface AlphaNameRevocation {
  alphaName: string;
  reason: string;
  revokedAt: number;
  /** The alpha-names revoked or narrowed, with the channels withdrawn and left: the account's first, then its sub-clients'. */
  alphaNames: AlphaNameWithdrawal[];
  /** The approved applications of the name now `revoked`: all, or those none of whose channels is left. */
  applications: SenderApplication[];
}

/** A bot an operator revoked: its approved applications of the account, now `revoked`. */
export interface BotRevocation {
  botName: string;
  reason: string;
  revokedAt: number;
  /** The applications revoked, by id: one, or one of each kind when the revocation named no kind. */
  applications: SenderApplication[];
}

/** What {@link createSenderService} needs. */
export interface SenderServiceDeps {
  storage: Storage & ClientStorage;
  accounts: AccountService;
  clock: Clock;
}

/** Sender applications (alpha-names and bots), their decisions, and the alpha-name statistics. */
export interface SenderService {
  applyForAlphaName(accountId: number, body: unknown): Promise<SenderApplication>;
  applyForBot(accountId: number, body: unknown): Promise<SenderApplication>;
  /** Approves (an alpha-name: on its channels) or rejects a pending application. 404 unknown, 409 decided. */
  decide(applicationId: number, body: unknown): Promise<SenderApplication>;
  list(accountId: number | null, filter?: { kind?: SenderKind; status?: ApplicationStatus }): Promise<SenderApplication[]>;
  /** Every sender of the account: approved alpha-names and the latest application of each other name. */
  senders(accountId: number): Promise<SenderState[]>;
  /** Operator: the approved alpha-names of an account (404 for an unknown account). */
  alphaNames(accountId: number): Promise<AlphaName[]>;
  /**
   * Operator: revokes an approved alpha-name of the account, and of the sub-clients below it that
   * hold it (provisioning shared it with them), at once. New sends from it are refused as from a
   * name never approved; messages of the messaging API accepted before keep going, and a running
   * cascade skips its steps not yet sent. 404 when the account has no such name. With `channels`,
   * withdraws the name from those channels only (400 for one the account's name lacks), on the
   * account and the sub-clients alike: sends on them are refused as on any channel the name lacks,
   * and the name is revoked entirely where no channel is left.
   */
  revokeAlphaName(accountId: number, body: unknown): Promise<AlphaNameRevocation>;
  /**
   * Operator: revokes an approved bot of the account (of one kind, or of both without `kind`): its
   * approved applications become `revoked` with the reason, so sends naming it are refused from the
   * next request on as naming a bot never approved, and the account may apply for it again. Bots
   * are the account's own (never shared with sub-clients): those of its sub-clients are left alone.
   * 404 when the account has no approved bot of that name (and kind).
   */
  revokeBot(accountId: number, body: unknown): Promise<BotRevocation>;
  /** SMS figures per alpha-name for messages created in `[from, to)`. */
  statistics(accountId: number, range: { from: number; to: number; alphaName?: string }): Promise<AlphaNameStatistics[]>;
}

/** Sender applications (alpha-names and bots), their decisions and statistics, of the client-management API. */
export function createSenderService(deps: SenderServiceDeps): SenderService {
  const { storage, accounts, clock } = deps;

  const mustExist = async (accountId: number) => {
    if (!(await accounts.get(accountId))) throw new SpillwayError('not_found', `account ${accountId} does not exist`);
  };
  /** The account's sub-clients, theirs, and so on (a visited set guards against a loop). */
  const subClientsOf = async (accountId: number): Promise<number[]> => {
    const seen = new Set([accountId]);
    const out: number[] = [];
    for (let queue = [accountId]; queue.length > 0;) {
      const next: number[] = [];
      for (const parent of queue) {
        for (const link of await storage.listClientLinks(parent, 'sub')) {
          if (seen.has(link.childId)) continue;
          seen.add(link.childId);
          out.push(link.childId);
          next.push(link.childId);
        }
      }
      queue = next;
    }
    return out;
  };

  // Every call is looked through before it runs, as the engine's own services are: U+0000 refused
  // at its path, lone surrogates made U+FFFD.
  return storableCalls({
    async applyForAlphaName(accountId, body) {
      const req = parseRequest(alphaNameApplicationSchema, body, 'alpha-name application');
      const channels = req.channels ?? ['sms'];
      const approved = await storage.getAlphaName(accountId, req.alphaName);
      if (approved && channels.every((c) => approved.channels.includes(c))) {
        throw new SpillwayError('conflict', `'${req.alphaName}' is approved already on ${channels.join(', ')}`);
      }
      const { alphaName, channels: _channels, ...details } = req;
      return storage.createSenderApplication({ accountId, kind: 'alpha_name', name: alphaName, channels, details }, clock.now());
    },

    async applyForBot(accountId, body) {
      const req = parseRequest(botApplicationSchema, body, 'bot application');
      const { botName, kind, ...details } = req;
      const channels: ChannelId[] = [kind === 'chatapp_bot' ? 'chatapp_bot' : 'messenger'];
      const approved = await storage.listSenderApplications(accountId, { kind, status: 'approved' });
      if (approved.some((a) => a.name === botName)) throw new SpillwayError('conflict', `'${botName}' is approved already`);
      return storage.createSenderApplication({ accountId, kind, name: botName, channels, details }, clock.now());
    },

    async decide(applicationId, body) {
      const decision = parseRequest(applicationDecisionSchema, body, 'decision');
      const found = await storage.getSenderApplication(applicationId);
      if (!found) throw new SpillwayError('not_found', `application ${applicationId} does not exist`);
      if (found.status !== 'pending') throw new SpillwayError('conflict', `application ${applicationId} is ${found.status} already`);
      const decided = await storage.decideSenderApplication(
        applicationId,
        { status: decision.status, reason: decision.reason ?? null },
        clock.now(),
      );
      if (!decided) throw new SpillwayError('conflict', `application ${applicationId} was decided meanwhile`);
      if (decided.status === 'approved' && decided.kind === 'alpha_name') {
        // Keep the channels the name had, add the ones applied for.
        const existing = await storage.getAlphaName(decided.accountId, decided.name);
        const channels = [...new Set([...(existing?.channels ?? []), ...decided.channels])];
        await accounts.approveAlphaName(decided.accountId, decided.name, channels);
      }
      return decided;
    },

    list: (accountId, filter) => storage.listSenderApplications(accountId, filter),

    async alphaNames(accountId) {
      await mustExist(accountId);
      return storage.listAlphaNames(accountId);
    },

    async revokeAlphaName(accountId, body) {
      const req = parseRequest(alphaNameRevocationSchema, body, 'revocation');
      await mustExist(accountId);
      const held = await storage.getAlphaName(accountId, req.alphaName);
      if (!held) throw new SpillwayError('not_found', `'${req.alphaName}' is not an approved alpha-name of account ${accountId}`);
      const channels = req.channels && [...new Set(req.channels)];
      const lacking = (req.channels ?? [])
        .map((channel, i) => ({ channel, path: `channels[${i}]` }))
        .filter((c) => !held.channels.includes(c.channel));
      if (lacking.length > 0) {
        throw new SpillwayError(
          'validation_failed',
          `'${req.alphaName}' is not approved on ${[...new Set(lacking.map((c) => c.channel))].join(', ')}`,
          lacking.map((c) => ({ path: c.path, message: `'${req.alphaName}' is not approved on ${c.channel}` })),
        );
      }
      const at = clock.now();
      const revoked = await storage.revokeAlphaNames(
        [accountId, ...(await subClientsOf(accountId))],
        req.alphaName,
        req.reason,
        at,
        channels,
      );
      if (!revoked.alphaNames.some((a) => a.accountId === accountId)) {
        throw new SpillwayError('not_found', `'${req.alphaName}' was revoked${channels ? ' from those channels' : ''} meanwhile`);
      }
      const first = (a: AlphaName) => (a.accountId === accountId ? 0 : 1);
      return {
        alphaName: req.alphaName,
        reason: req.reason,
        revokedAt: at,
        alphaNames: [...revoked.alphaNames].sort((x, y) => first(x) - first(y) || x.accountId - y.accountId),
        applications: revoked.applications,
      };
    },

    async revokeBot(accountId, body) {
      const req = parseRequest(botRevocationSchema, body, 'revocation');
      await mustExist(accountId);
      const at = clock.now();
      const applications = await storage.revokeBotApplications(accountId, req.botName, req.reason, at, req.kind);
      if (applications.length === 0) {
        const what = req.kind ? `an approved ${req.kind}` : 'an approved bot';
        throw new SpillwayError('not_found', `'${req.botName}' is not ${what} of account ${accountId}`);
      }
      return { botName: req.botName, reason: req.reason, revokedAt: at, applications };
    },

    async senders(accountId) {
      const [names, applications] = await Promise.all([storage.listAlphaNames(accountId), storage.listSenderApplications(accountId)]);
      const out = new Map<string, SenderState>();
      for (const a of names) {
        // A name may be approved without an application (bootstrap, CLI).
        const app = applications.find((x) => x.kind === 'alpha_name' && x.name === a.name && x.status === 'approved');
        out.set(`alpha_name:${a.name}`, {
          name: a.name,
          kind: 'alpha_name',
          channels: a.channels,
          status: 'approved',
          reason: null,
          applicationId: app?.id ?? null,
        });
      }
      // Applications come newest first: the newest one of a sender not approved tells its state.
      for (const app of applications) {
        const key = `${app.kind}:${app.name}`;
        if (out.has(key)) continue;
        out.set(key, {
          name: app.name,
          kind: app.kind,
          channels: app.channels,
          status: app.status,
          reason: app.reason,
          applicationId: app.id,
        });
      }
      return [...out.values()].sort((x, y) => x.kind.localeCompare(y.kind) || x.name.localeCompare(y.name));
    },

    async statistics(accountId, range) {
      if (!(range.from < range.to)) {
        throw new SpillwayError('validation_failed', 'dateFrom must be before dateTo', [{ path: 'dateFrom', message: 'after dateTo' }]);
      }
      if (range.to - range.from > MAX_STATISTICS_DAYS * DAY) {
        throw new SpillwayError('validation_failed', `the period is longer than ${MAX_STATISTICS_DAYS} days`, [
          { path: 'dateTo', message: 'period too long' },
        ]);
      }
      const activity = await storage.listStepActivity(accountId, range);
      const names = range.alphaName ? [range.alphaName] : (await storage.listAlphaNames(accountId)).map((a) => a.name);
      const stats = alphaNameStatistics(activity, names);
      return range.alphaName ? stats.filter((s) => s.alphaName === range.alphaName) : stats;
    },
  });
}
