import { SpillwayError } from '@spillway/core';

/**
 * The `/docs` page: Scalar's API reference over `/openapi.json`, with search, examples and a
 * try-it client that takes the user's key. Its script is served by the app itself from the
 * `@scalar/api-reference` package (no CDN: the reference server may run offline), fonts are the
 * system's, and Scalar's telemetry and AI agent are off. That package (83 MB installed) is an
 * optional peer dependency of `@spillway/http`, read only when the page asks for its script:
 * without it, the page says what to install and the script answers 501.
 */

/** The package whose browser bundle `/docs` serves. */
export const DOCS_PACKAGE = '@scalar/api-reference';

/** What `/docs` says, and `/docs/scalar.js` answers (501), when {@link DOCS_PACKAGE} is not installed. */
export const DOCS_PACKAGE_MISSING =
  `The API reference at /docs needs the package ${DOCS_PACKAGE}, an optional peer dependency of @spillway/http: ` +
  `install it in your app (npm install ${DOCS_PACKAGE}), or turn /docs and /openapi.json off with docs: false. ` +
  'The OpenAPI document itself is served at openapi.json.';

/**
 * The Content-Security-Policy of `/docs`: the page talks to this server only. Scalar would fetch
 * fonts and, opened on localhost, an AI agent's registry from its own cloud; the configuration
 * turns both off and the policy stops them anyway, while try-it requests to this server still go.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'self'",
].join('; ');

/** Where the page finds its script, relative to `/docs`. */
export const DOCS_SCRIPT_PATH = '/docs/scalar.js';

/**
 * Scalar's configuration of `/docs`: nothing in the page leaves the server.
 */
export function docsConfiguration(specUrl: string): Record<string, unknown> {
  return {
    url: specUrl,
    withDefaultFonts: false,
    telemetry: false,
    persistAuth: true,
    hideDownloadButton: false,
    defaultOpenAllTags: false,
    showOperationId: true,
    // Nothing leaves the server: no developer toolbar, no registry calls, and no "Ask AI" (shown on
    // a local address or with an agent key), whose chat uploads the whole document to Scalar.
    showDeveloperTools: 'never',
    agent: { disabled: true },
    authentication: { preferredSecurityScheme: 'apiKeyAuth' },
    metaData: { title: 'Spillway API' },
  };
}

/** `"` and `&` escaped, for a value in a double-quoted HTML attribute. */
const escapeAttribute = (value: string) => value.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

/**
 * The HTML of `/docs`. URLs are relative, so that the page works under any mount prefix. When the
 * script does not load ({@link DOCS_PACKAGE} not installed), the page says so.
 *
 * @example
 * app.get('/docs', (c) => c.html(renderDocsPage()));
 */
export function renderDocsPage(specUrl = 'openapi.json', scriptUrl = `docs/scalar.js`): string {
  const missing = `document.getElementById('spillway-docs').textContent = ${JSON.stringify(DOCS_PACKAGE_MISSING)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spillway API</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<div id="spillway-docs"></div>
<noscript>The API reference needs JavaScript; the document itself is at <a href="${specUrl}">${specUrl}</a>.</noscript>
<script src="${scriptUrl}" onerror="${escapeAttribute(missing)}"></script>
<!-- Not id="api-reference": Scalar's standalone script mounts a second, empty reference on it. -->
<script>if (window.Scalar) Scalar.createApiReference('#spillway-docs', ${JSON.stringify(docsConfiguration(specUrl))});</script>
</body>
</html>
`;
}

interface DocsScript {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
}

let script: Promise<DocsScript> | undefined;

/**
 * Where the browser bundle of {@link DOCS_PACKAGE} is, from this module; a `SpillwayError`
 * `not_configured` naming the package when it is not installed.
 */
export function resolveDocsScript(resolve: (id: string) => string): string {
  try {
    return resolve(`${DOCS_PACKAGE}/browser/standalone.js`);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND') throw new SpillwayError('not_configured', DOCS_PACKAGE_MISSING);
    throw error;
  }
}

/**
 * Scalar's standalone browser bundle (3.5 MB, 0.9 MB gzipped), read and compressed once on the
 * first request. Node-only modules are imported here, lazily, so the app itself still builds in
 * any runtime; the package itself is only looked for then (it is an optional peer dependency).
 */
export function docsScript(): Promise<DocsScript> {
  script ??= (async () => {
    const [{ createRequire }, { readFile }, { gzipSync }, { createHash }] = await Promise.all([
      import('node:module'),
      import('node:fs/promises'),
      import('node:zlib'),
      import('node:crypto'),
    ]);
    const body = await readFile(resolveDocsScript(createRequire(import.meta.url).resolve));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    return { body: new Uint8Array(body), gzip: new Uint8Array(gzipSync(body)), etag };
  })();
  script.catch(() => {
    script = undefined;
  });
  return script;
}
