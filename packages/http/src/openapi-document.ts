import type { Hono } from 'hono';
import { z } from 'zod';
import { ComponentCollector } from './openapi-components.ts';
import './openapi-names.ts';
import { routeRecords } from './openapi.ts';
import type { RouteAuth, RouteRecord } from './openapi.ts';
import { errorBodySchema } from './schemas.ts';

type Json = Record<string, unknown>;

/** Title, version and servers of the generated document. */
export interface OpenApiInfo {
  /** @default 'Spillway' */
  title?: string;
  /** The API's version label (interface 9), not the package version. @default 'v1' */
  version?: string;
  description?: string;
  /**
   * Where the app is mounted when the request does not show it (a framework that strips its
   * mount path before handing the request on): the document's server URL. Under a Hono parent
   * (`parent.route('/sms', app)`) the prefix is read from the request.
   * @example '/sms'
   */
  basePath?: string;
  /** Servers of the document, instead of the one made from the base path. */
  servers?: Array<{ url: string; description?: string }>;
}

/** Facts of the serving app that the document depends on. */
export interface OpenApiBuildOptions {
  /** Prefix the app answers under, for `servers` (overridden by `info.basePath`). @default '' */
  basePath?: string;
  /** Whether `basic-or-key` routes also take a client token as Bearer (the app has a token service). @default true */
  clientTokens?: boolean;
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema, inline, without the `$schema` marker. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  return rest;
}

const SECURITY_SCHEMES = {
  basicAuth: { type: 'http', scheme: 'basic', description: 'Login and password, or `@` as login and an API key as password.' },
  apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Authorization-Key', description: 'An API key of the account.' },
  clientToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A client token from `POST /api/auth` (also accepted as `X-Authorization-Key`).',
  },
  companyToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A company token of the chat hub from `POST /api/company/get-token`.',
  },
  companyTokenKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Authorization-Key',
    description: 'A company token of the chat hub, in the key header instead of Bearer.',
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An operator token of the chat hub from `POST /api/operator/get-token`.',
  },
  adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key', description: 'The operator key of the server (`SPILLWAY_ADMIN_KEY`).' },
} as const;

type Scheme = keyof typeof SECURITY_SCHEMES;

function securityOf(auth: RouteAuth, clientTokens: boolean): Array<Partial<Record<Scheme, string[]>>> {
  switch (auth) {
    case 'basic-or-key':
      return [{ basicAuth: [] }, { apiKeyAuth: [] }, ...(clientTokens ? [{ clientToken: [] }] : [])];
    case 'company-token':
      return [{ companyToken: [] }, { companyTokenKey: [] }];
    case 'operator-token':
      return [{ operatorToken: [] }];
    case 'client-token':
      return [{ apiKeyAuth: [] }];
    case 'admin-key':
      return [{ adminKey: [] }];
    case 'none':
      return [];
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  messaging: 'Send messages with fallbacks, read their status, change scheduled ones (interface 4.1).',
  cascade: 'Cascade messages that walk a route of channel steps, and their status (interface 4.2).',
  routes: 'Cascade routes: create, revise, bind and watch them.',
  client:
    'Client management (interface 4.3): wallet, alpha-names and their callbacks, sender applications, sub-clients, organizations, per-phone data, e-mail.',
  bots: 'Messenger and chat-app bots of the account: receivers, costs, chat messages.',
  admin: 'Operator routes of the server (X-Admin-Key).',
  'client management': 'Client-management tokens (`POST /api/auth`).',
  classic: 'The classic single-message entry points into the messaging engine.',
  'chat hub': 'Company and operator tokens of the chat hub (interface 4.4).',
  social: 'The social platform: webhooks, authorization and the graph proxy.',
  sandbox: 'The simulator: inject incoming messages and watch their callbacks.',
  system: 'Health, metrics and this description.',
};

const TAG_ORDER = Object.keys(TAG_DESCRIPTIONS);
const rank = (tag: string): number => (TAG_ORDER.includes(tag) ? TAG_ORDER.indexOf(tag) : TAG_ORDER.length);

const PATH_PARAM = /:([A-Za-z0-9_]+)(?:\{[^}]*\})?/g;

function pascal(id: string): string {
  return id[0]!.toUpperCase() + id.slice(1);
}

/** The answers every route of a kind can give: `components.responses`, referred to by each operation. */
const COMMON_RESPONSES = {
  BadRequest: { status: '400', description: 'Invalid request: every bad member listed in `details`' },
  PayloadTooLarge: { status: '413', description: 'Request body too large' },
  UnsupportedMediaType: { status: '415', description: 'Unsupported content type' },
  Unauthorized: { status: '401', description: 'Missing or wrong credentials' },
  TooManyRequests: { status: '429', description: 'Rate limit exceeded: retry after `Retry-After` seconds' },
  ServiceUnavailable: {
    status: '503',
    description: 'The database was too busy to take the request; nothing was written: retry after `Retry-After` seconds',
  },
} as const;

type CommonResponse = keyof typeof COMMON_RESPONSES;

function commonResponsesOf(record: RouteRecord): CommonResponse[] {
  const out: CommonResponse[] = [];
  if (record.body) out.push('BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType');
  if (record.auth !== 'none') out.push('Unauthorized');
  if (record.auth !== 'none' && record.auth !== 'admin-key') out.push('TooManyRequests');
  // Any route that reaches the storage, authenticated or not (the gateway's callbacks, logins, short links).
  if (record.storage !== false) out.push('ServiceUnavailable');
  return out;
}

function commonResponseComponents(used: Set<CommonResponse>, error: Json): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const name of Object.keys(COMMON_RESPONSES) as CommonResponse[]) {
    if (!used.has(name)) continue;
    out[name] = {
      description: COMMON_RESPONSES[name].description,
      ...(name === 'TooManyRequests' || name === 'ServiceUnavailable'
        ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } } }
        : {}),
      content: { 'application/json': { schema: error } },
    };
  }
  return out;
}

/** The `requestBody` of a route with a body: its schema under each media type it may come in. */
function requestBodyOf(record: RouteRecord, body: z.ZodType, components: ComponentCollector): Json {
  const content: Record<string, Json> = {};
  for (const type of record.bodyMediaTypes ?? ['application/json']) {
    content[type] = {
      schema: components.ref(body, 'input', `${pascal(record.operationId)}Request`),
      ...(record.bodyExample !== undefined && type === 'application/json' ? { example: record.bodyExample } : {}),
    };
  }
  return { required: record.bodyRequired ?? true, content };
}

function operationOf(record: RouteRecord, components: ComponentCollector, clientTokens: boolean, used: Set<CommonResponse>): Json {
  const base = pascal(record.operationId);
  const parameters: Json[] = [];
  for (const match of record.path.matchAll(PATH_PARAM)) {
    const name = match[1]!;
    const schema = record.params?.[name];
    parameters.push({ name, in: 'path', required: true, schema: schema ? jsonSchemaOf(schema, 'input') : { type: 'string' } });
  }
  for (const [where, object] of [
    ['query', record.query],
    ['header', record.headers],
  ] as const) {
    if (!object) continue;
    const json = jsonSchemaOf(object, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: where,
        required: json.required?.includes(name) ?? false,
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
        ...(where === 'query' && rest['type'] === 'array' ? { style: 'form', explode: true } : {}),
      });
    }
  }

  const error = () => components.ref(errorBodySchema, 'output', 'Error');
  const responses: Record<string, Json> = {};
  for (const name of commonResponsesOf(record)) {
    if (record.responses[Number(COMMON_RESPONSES[name].status)]) continue;
    used.add(name);
    responses[COMMON_RESPONSES[name].status] = { $ref: `#/components/responses/${name}` };
  }
  for (const [status, response] of Object.entries(record.responses)) {
    // An error status without a schema answers the common error body.
    const code = Number(status);
    const schema = response.schema ? components.ref(response.schema, 'output', `${base}${code < 300 ? '' : status}Response`) : null;
    const content = schema ?? (code >= 400 ? error() : null);
    responses[status] = {
      description: response.description,
      ...(content
        ? {
            content: {
              [response.contentType ?? 'application/json']: {
                schema: content,
                ...(response.example !== undefined ? { example: response.example } : {}),
              },
            },
          }
        : {}),
    };
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));

  return {
    operationId: record.operationId,
    summary: record.summary,
    ...(record.description ? { description: record.description } : {}),
    tags: record.tags,
    security: securityOf(record.auth, clientTokens),
    ...(parameters.length ? { parameters } : {}),
    ...(record.body ? { requestBody: requestBodyOf(record, record.body, components) } : {}),
    responses: sorted,
  };
}

/**
 * Builds the OpenAPI 3.1 document of every route recorded by `defineRoute` on `app`, with its
 * schemas from the same zod schemas the code uses, as named components (`$ref`).
 */
export function buildOpenApiDocument(app: Hono<any, any, any>, info: OpenApiInfo = {}, options: OpenApiBuildOptions = {}): Json {
  const components = new ComponentCollector();
  const paths: Record<string, Record<string, unknown>> = {};
  const usedIds = new Set<string>();
  const usedResponses = new Set<CommonResponse>();
  const usedSchemes = new Set<string>();
  const tags = new Set<string>();
  for (const record of routeRecords(app)) {
    let operationId = record.operationId;
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${record.operationId}${n}`;
    usedIds.add(operationId);
    record.tags.forEach((t) => tags.add(t));
    const path = record.path.replace(PATH_PARAM, '{$1}');
    const operation = operationOf({ ...record, operationId }, components, options.clientTokens ?? true, usedResponses);
    for (const requirement of operation['security'] as Array<Record<string, unknown>>)
      Object.keys(requirement).forEach((k) => usedSchemes.add(k));
    (paths[path] ??= {})[record.method] = operation;
  }
  const basePath = (info.basePath ?? options.basePath ?? '').replace(/\/+$/, '');
  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'Spillway',
      version: info.version ?? 'v1',
      description: info.description ?? 'Multi-channel messaging engine: messaging, cascade, chat hub and client-management APIs.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: info.servers ?? [{ url: basePath || '/', description: basePath ? `This server, under ${basePath}` : 'This server' }],
    // Known tags in the order of TAG_DESCRIPTIONS (the messaging API first), then the others.
    tags: [...tags]
      .sort((a, b) => rank(a) - rank(b))
      .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations of ${name}.` })),
    paths,
  };
  document['components'] = {
    responses: commonResponseComponents(usedResponses, components.ref(errorBodySchema, 'output', 'Error')),
    // Only the schemes some operation takes (an unused one would be offered in /docs for nothing).
    securitySchemes: Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => usedSchemes.has(name))),
  };
  const schemas = components.finish(document);
  (document['components'] as Json)['schemas'] = schemas;
  return document;
}
