/**
 * The `/docs` page: Scalar's API reference over `/openapi.json`, with search, examples and a
 * try-it client that takes the user's key. Its script is served by the app itself from the
 * `@scalar/api-reference` package (no CDN: the reference server may run offline), fonts are the
 * system's, and Scalar's telemetry is off.
 */

/**
 * The Content-Security-Policy of `/docs`: the page talks to this server only. Scalar would fetch
 * fonts and, opened on localhost, an AI agent's registry from its own cloud; the policy stops
 * both, while try-it requests to this server still go.
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
 * The HTML of `/docs`. URLs are relative, so that the page works under any mount prefix.
 *
 * @example
 * app.get('/docs', (c) => c.html(renderDocsPage()));
 */
export function renderDocsPage(specUrl = 'openapi.json', scriptUrl = `docs/scalar.js`): string {
  const configuration = {
    url: specUrl,
    withDefaultFonts: false,
    telemetry: false,
    persistAuth: true,
    hideDownloadButton: false,
    defaultOpenAllTags: false,
    showOperationId: true,
    // Nothing leaves the server: no developer toolbar, no registry or agent calls.
    showDeveloperTools: 'never',
    authentication: { preferredSecurityScheme: 'apiKeyAuth' },
    metaData: { title: 'Spillway API' },
  };
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
<script src="${scriptUrl}"></script>
<!-- Not id="api-reference": Scalar's standalone script mounts a second, empty reference on it. -->
<script>Scalar.createApiReference('#spillway-docs', ${JSON.stringify(configuration)});</script>
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
 * Scalar's standalone browser bundle (3.5 MB, 0.9 MB gzipped), read and compressed once on the
 * first request. Node-only modules are imported here, lazily, so the app itself still builds in
 * any runtime.
 */
export function docsScript(): Promise<DocsScript> {
  script ??= (async () => {
    const [{ createRequire }, { readFile }, { gzipSync }, { createHash }] = await Promise.all([
      import('node:module'),
      import('node:fs/promises'),
      import('node:zlib'),
      import('node:crypto'),
    ]);
    const require = createRequire(import.meta.url);
    const body = await readFile(require.resolve('@scalar/api-reference/browser/standalone.js'));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    return { body: new Uint8Array(body), gzip: new Uint8Array(gzipSync(body)), etag };
  })();
  script.catch(() => {
    script = undefined;
  });
  return script;
}
