import type { Clock } from '../clock.ts';
import { parseCascadeRequest } from '../cascade/cascade-request.ts';
import type { ValidatedCascade } from '../cascade/cascade-request.ts';
import { cascadeTexts, cascadeVariableRefs, checkCascadeVariables, variableValue } from '../cascade/cascade-variables.ts';
import type { CheckVariablesOptions } from '../cascade/cascade-variables.ts';
import { planCascade } from '../cascade/plan-cascade.ts';
import { isLinkValue, parseVariableUpload, resolveVariables } from '../cascade/variables.ts';
import { countSegments } from '../sms/segments.ts';
import { fillPhoneVariables, unknownPhoneVariables } from '../clients/phone-data-texts.ts';
import { unknownBotNames } from '../clients/bot-names.ts';
import { hasClientStorage } from '../ports/client-storage.ts';
import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { priceAttempt } from '../pricing/price-attempt.ts';
import type { RateCard } from '../pricing/rate-card.ts';
import type { NewMessage } from '../ports/message-storage.ts';
import type { Storage } from '../ports/storage.ts';
import { flashcallRoute, hasFlashcallStep, routeRef } from '../routes/builtin-routes.ts';
import type { StepSpec, StoredMessage } from '../types/message.ts';
import type { Route } from '../types/route.ts';
import type { MachineAdvancer } from './advance.ts';
import { broadcastDetails, expandBroadcast } from './cascade-broadcast.ts';
import { cascadeKindHandler } from './cascade-kind-handler.ts';
import type { CascadeMeta } from './cascade-meta.ts';
import { buildCascadeStatus } from './cascade-status.ts';
import type { CascadeAccepted, CascadeSendOptions, CascadeService } from './cascade-types.ts';
import { approvedChannels } from './alpha-names.ts';
import { createFirstStepWaiter } from './first-step-waiter.ts';
import type { KindHandler } from './kind-handler.ts';
import { fromMicros } from './money.ts';
import { createRouteLoader } from './route-loader.ts';
import { createRouteService } from './route-service.ts';
import { resolveNamedRoutes } from './named-routes.ts';

/** Longest wait of the synchronous legacy endpoints for the first step to be handed over. */
const FIRST_STEP_TIMEOUT_MS = 10_000;
/** At most one `Clicked` history entry per message in this window (clicks need no auth). */
export const CLICK_HISTORY_WINDOW_MS = 60_000;
/** Length of a short link's code, to count SMS parts at acceptance before the link exists. */
const SHORT_CODE_LENGTH = 8;

export interface CascadeDeps {
  storage: Storage;
  clock: Clock;
  rateCard: RateCard;
  advancer: MachineAdvancer;
  notify: () => void;
  defaultTtlSeconds: number;
  maxRetries?: number | undefined;
  /**
   * Base of short links; a function that throws (a `SpillwayError`) when the base is unknown
   * refuses the cascades that make one. @default 'http://127.0.0.1:8080'
   */
  publicBaseUrl?: string | (() => string) | undefined;
}

/**
 * The cascade API over the engine: acceptance (one transaction per request, nothing charged
 * until a step is sent), status, broadcast, routes, variables and short links; plus the
 * {@link KindHandler} that runs cascade messages, and `poke`, called after the worker's commits.
 */
export function createCascadeService(deps: CascadeDeps): { service: CascadeService; handler: KindHandler; poke: () => void } {
  const { storage, clock, rateCard, advancer } = deps;
  const loader = createRouteLoader(storage, { maxRetries: deps.maxRetries });
  const routes = createRouteService(storage, clock);
  const waiter = createFirstStepWaiter(storage, clock);
  const publicBaseUrl = () => {
    const base = deps.publicBaseUrl ?? 'http://127.0.0.1:8080';
    return (typeof base === 'function' ? base() : base).replace(/\/+$/, '');
  };
  const handler = cascadeKindHandler({
    storage,
    clock,
    routes: loader,
    publicBaseUrl,
    defaultTtlSeconds: deps.defaultTtlSeconds,
    rateCard,
  });

  /**
   * Alpha-names must be the account's; every variable and every route named must be known (400
   * listing every path). `variablesAt` addresses a variable's problem (see `checkCascadeVariables`).
   * Answers the stored variables used and the routes named, by message index.
   */
  async function check(
    accountId: number,
    validated: ValidatedCascade[],
    variablesAt: CheckVariablesOptions['at'],
  ): Promise<{ stored: Map<string, string>; named: Map<number, Route> }> {
    const approved = await approvedChannels(
      storage,
      accountId,
      validated.map((v) => ({ name: v.fromName })),
    );
    const details: ErrorDetail[] = validated
      .filter((v) => !approved.has(v.fromName))
      .map((v) => ({ path: `${v.path}.fromName`, message: `alpha-name "${v.fromName}" is not an approved alpha-name of this account` }));
    const refs = validated.flatMap((v) => cascadeVariableRefs(v));
    // A short link needs the public origin: a `publicBaseUrl` that cannot name it throws here, so
    // the request is refused before anything is stored rather than sent with a wrong link.
    if (refs.some((r) => r.kind === 'short_url')) publicBaseUrl();
    const ids = [...new Set(refs.map((r) => r.id))];
    const stored = new Map((ids.length ? await storage.getVariables(accountId, ids) : []).map((v) => [v.id, v.value] as const));
    details.push(...checkCascadeVariables(validated, stored, { at: variablesAt }));
    // Per-phone placeholders (`%bonus%`) are filled when a step is sent, after the variables: each
    // must be one the recipient's data has now, as each variable must be known now.
    const link = 'https://short.link/x';
    const texts = validated.flatMap((v) =>
      cascadeTexts(v).map(([field, text]) => ({
        to: v.toPhone,
        text: resolveVariables(text, (kind, id) => (kind === 'short_url' ? link : variableValue(v, stored, id))),
        // A broadcast's template is every recipient's: the recipient lacking the data is addressed.
        ...(variablesAt === 'variables' ? { path: `${v.path}.toPhone`, field } : { path: `${v.path}.${field}` }),
      })),
    );
    details.push(...(await unknownPhoneVariables(storage, accountId, texts)));
    // A bot the messenger step names must be one of the account's (its binding is looked up by name).
    const bots = validated.flatMap((v) => {
      const botName = v.messengerMessage?.['botName'];
      return typeof botName === 'string' ? [{ botName, path: `${v.path}.messengerMessage.botName` }] : [];
    });
    if (bots.length > 0 && hasClientStorage(storage)) details.push(...(await unknownBotNames(storage, accountId, bots)));
    const named = await resolveNamedRoutes(routes, accountId, validated);
    details.push(...named.details);
    if (details.length > 0) throw new SpillwayError('validation_failed', 'The cascade request is invalid', details);
    return { stored, named: named.byIndex };
  }

  async function build(
    accountId: number,
    v: ValidatedCascade,
    route: Route,
    now: number,
    options: CascadeSendOptions,
    stored: ReadonlyMap<string, string>,
  ): Promise<NewMessage> {
    const plan = planCascade(v, route, {
      now,
      defaultStepTimeoutSeconds: deps.defaultTtlSeconds,
      credentials: {
        messenger: Boolean(options.credentials?.messengerBotToken),
        chatappBot: Boolean(options.credentials?.chatappBotToken),
      },
    });
    // SMS parts are counted on the text as it will be sent (variables in, a short link's length,
    // the recipient's per-phone data in), so that the price stored with the step is the one charged.
    const link = () => `${publicBaseUrl()}/s/${'x'.repeat(SHORT_CODE_LENGTH)}`;
    const resolved = plan.steps.map((d) =>
      d.channel === 'sms'
        ? { ...d, text: resolveVariables(d.text, (kind, id) => (kind === 'short_url' ? link() : variableValue(v, stored, id))) }
        : d,
    );
    const filled = await fillPhoneVariables(storage, accountId, resolved);
    const steps: StepSpec[] = plan.steps.map((d, i) => {
      const draft = { ...d, partsCount: d.channel === 'sms' ? countSegments(filled[i]!.text).parts : d.partsCount };
      return { ...draft, ...priceAttempt(rateCard, draft) };
    });
    const ref = routeRef(route);
    const key = `cascade:${ref}`;
    const machine = await loader.machine(ref);
    let step = advancer.initial(key, machine, undefined);
    const guid = globalThis.crypto.randomUUID();
    const credentials =
      options.credentials && (options.credentials.chatappBotToken || options.credentials.messengerBotToken) ? options.credentials : null;
    const meta: CascadeMeta = {
      messageType: v.messageType,
      endpoint: options.endpoint ?? 'default',
      referralGuid: options.referralGuid ?? null,
      customerData: v.customerData,
      checkSession: v.checkSession,
      credentials,
      variables: v.variables,
    };
    const message: NewMessage = {
      kind: 'cascade',
      guid,
      trackinId: v.trackinId ?? guid,
      customerMessageId: null,
      // The route named is the message's route (`routeRef`), not content.
      content: JSON.stringify({ ...v, index: undefined, path: undefined, route: undefined }),
      steps,
      status: step.status,
      snapshot: step.state,
      routeRef: ref,
      dueAt: plan.dueAt,
      expiresAt: plan.expiresAt,
      charge: 0,
      meta: meta as unknown as Record<string, unknown>,
      work: [],
      history: [],
    };
    if (plan.dueAt > now) {
      message.work.push({ kind: 'event', event: { type: 'DUE' }, dueAt: plan.dueAt });
    } else {
      // Due now: take the first step at once so the send is in the outbox with the message.
      step = advancer.next(key, machine, step.state, { type: 'DUE' });
      message.status = step.status;
      message.snapshot = step.state;
      for (const a of step.actions) if (a.type === 'send') message.work.push({ kind: 'send', step: a.params.step, dueAt: now });
    }
    return message;
  }

  async function load(accountId: number, message: StoredMessage | null, what: string): Promise<ReturnType<typeof buildCascadeStatus>> {
    // Another account's message is reported exactly like a missing one.
    if (!message || message.accountId !== accountId || message.kind !== 'cascade')
      throw new SpillwayError('not_found', `cascade message ${what} not found`);
    const route = message.routeRef ? await loader.route(message.routeRef).catch(() => null) : null;
    const currency = (await storage.getAccount(accountId))?.currency ?? rateCard.currency;
    return buildCascadeStatus(message, route, await storage.history(message.id), currency);
  }

  /** Accepts a cascade request (either shape): `send`, and `broadcast` once expanded. */
  async function accept(
    accountId: number,
    body: unknown,
    options: CascadeSendOptions,
    variablesAt: CheckVariablesOptions['at'],
  ): Promise<CascadeAccepted[]> {
    const now = clock.now();
    const alphaNames = await storage.listAlphaNames(accountId);
    // A message that names no alpha-name goes from the account's one; with several, it must name one.
    const validated = parseCascadeRequest(body, {
      now,
      ...(alphaNames.length === 1 ? { defaultFromName: alphaNames[0]!.name } : { alphaNames: alphaNames.map((a) => a.name) }),
    });
    const { stored, named } = await check(accountId, validated, variablesAt);
    const resolved = new Map<string, Route>();
    const batch: NewMessage[] = [];
    let required = 0;
    for (const v of validated) {
      // A route the message names wins over the alpha-name's binding and the endpoint's preference.
      let route = named.get(v.index) ?? resolved.get(v.fromName);
      if (!route) {
        route = await routes.resolve(accountId, v.fromName, options.endpoint ?? 'default');
        resolved.set(v.fromName, route);
      }
      // A flash call needs a flash-call step; a route without one runs the built-in flash call → SMS
      // (a route named has one: `resolveNamedRoutes` refuses one without).
      const own = v.messageType === 'flashcall' && !hasFlashcallStep(route) ? flashcallRoute : route;
      const message = await build(accountId, v, own, now, options, stored);
      required += message.steps[firstSendable(own, message.steps, options)]?.cost ?? 0;
      batch.push(message);
    }
    const balance = await storage.getBalance(accountId);
    if (balance < required) {
      throw new SpillwayError(
        'payment_required',
        `balance ${fromMicros(balance)} does not cover the first steps (${fromMicros(required)})`,
      );
    }
    const ingest = { accountId, at: now, messages: batch, chargeDescription: 'cascade' };
    // Its rows built now, outside the write lock (another thread's writes may hold it).
    storage.prepareIngest?.(ingest);
    const result = await storage.ingest(ingest);
    if (result.status !== 'accepted') throw new SpillwayError('internal', `cascade ingest answered ${result.status}`);
    // Messages not due yet cannot have a step handed over before then: no wait for them.
    const due = result.ids.filter((_, i) => (batch[i]?.dueAt ?? now) <= now);
    const done = options.waitForFirstStep && due.length > 0 ? waiter.wait(due, FIRST_STEP_TIMEOUT_MS) : null;
    deps.notify();
    if (done) await done;
    return batch.map((m): CascadeAccepted => ({ messageId: m.guid as string, trackinId: m.trackinId as string }));
  }

  const service: CascadeService = {
    send: (accountId, body, options = {}) => accept(accountId, body, options, 'field'),

    async broadcast(accountId, body, options = {}) {
      const { items, own } = expandBroadcast(body);
      try {
        // The template's texts are every recipient's: a variable one lacks is addressed at its variables.
        const accepted = await accept(accountId, items, options, 'variables');
        return {
          count: accepted.length,
          messages: accepted.map((a, i) => ({ ...a, toPhone: String(items[i]?.['toPhone']).replace(/^\+/, '') })),
        };
      } catch (error) {
        if (error instanceof SpillwayError && error.details)
          throw new SpillwayError(error.code, error.message, broadcastDetails(error.details, own));
        throw error;
      }
    },

    // GUIDs are made lowercase; a UUID is the same in either case.
    statusByGuid: async (accountId, guid) => load(accountId, await storage.getMessageByGuid(guid.toLowerCase()), guid),
    statusByTrackinId: async (accountId, trackinId) =>
      load(accountId, await storage.getMessageByTrackinId(accountId, trackinId), trackinId),

    listRoutes: (accountId) => routes.list(accountId),
    getRoute: (accountId, id) => routes.get(accountId, id),
    createRoute: (accountId, body) => routes.create(accountId, body),
    updateRoute: (accountId, id, body) => routes.update(accountId, id, body),
    deleteRoute: (accountId, id) => routes.remove(accountId, id),
    bindRoute: (accountId, id, alphaName) => routes.bind(accountId, id, alphaName),
    listBindings: (accountId) => routes.bindings(accountId),

    async uploadVariables(accountId, body) {
      const variables = parseVariableUpload(body);
      await storage.upsertVariables(accountId, variables, clock.now());
      return { stored: variables.length };
    },

    async resolveShortLink(code, options = {}) {
      const valid = /^[A-Za-z0-9]{1,32}$/.test(code);
      const count = options.count ?? true;
      const link = !valid ? null : count ? await storage.recordClick(code) : await storage.getShortLink(code);
      // A link whose target is not http(s) (made before the check, or stored by hand) never redirects.
      if (!link || !isLinkValue(link.url)) throw new SpillwayError('not_found', 'no such short link');
      const message = count ? await storage.getMessage(link.messageId) : null;
      if (message) {
        const history = await storage.history(message.id);
        const now = clock.now();
        // Clicks need no auth, so history keeps at most one Clicked per message per window;
        // the link's counter still counts every click.
        const recent = history.some((h) => h.status === 'Clicked' && now - h.at < CLICK_HISTORY_WINDOW_MS);
        // The click belongs to the step that carried the link: the last one handed to a channel.
        const sent = history.filter((h) => h.status === 'Sent').pop();
        const step = sent?.step ?? Number(message.snapshot.context['step'] ?? 0);
        const channel = sent?.channel ?? message.steps[step]?.channel ?? 'sms';
        if (!recent) await storage.appendHistory([{ messageId: message.id, step, channel, status: 'Clicked', at: now, error: null }]);
      }
      return link.url;
    },
  };
  return { service, handler, poke: () => waiter.poke() };
}

/**
 * Index of the first step that can be sent given the bot credentials known at acceptance: bot
 * steps without their key are skipped at send, and a skip follows the `undeliverable` edge.
 */
export function firstSendable(route: Route, steps: readonly StepSpec[], options: CascadeSendOptions): number {
  const index = new Map(route.steps.map((s, i) => [s.id, i] as const));
  const hasKey = (channel: string) =>
    channel === 'messenger'
      ? Boolean(options.credentials?.messengerBotToken)
      : channel === 'chatapp_bot'
        ? Boolean(options.credentials?.chatappBotToken)
        : true;
  let id: string | undefined = route.start;
  const start = index.get(route.start) ?? 0;
  // The route is acyclic, so this walk ends within its number of steps.
  for (let hops = 0; id !== undefined && hops <= route.steps.length; hops++) {
    const i = index.get(id);
    const step = i === undefined ? undefined : steps[i];
    if (i === undefined || !step) return start;
    if (hasKey(step.channel)) return i;
    id = route.edges.find((e) => e.from === id && e.on === 'undeliverable')?.to;
  }
  return start;
}
