/**
 * A self-contained page that fetches `/openapi.json` and lists every operation with its auth,
 * parameters, request body and responses. No CDN or external asset: the reference server may
 * run offline.
 */
export function renderDocsPage(specUrl = 'openapi.json'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spillway API</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 980px; padding: 1rem 1.5rem 4rem; color: #1d2430; }
  h1 { margin-bottom: .2rem; } .muted { color: #667; }
  h2 { margin-top: 2rem; border-bottom: 1px solid #dde; padding-bottom: .3rem; }
  details { border: 1px solid #dde; border-radius: 6px; margin: .5rem 0; background: #fff; }
  summary { cursor: pointer; padding: .5rem .75rem; display: flex; gap: .75rem; align-items: baseline; }
  .m { font: 600 12px ui-monospace, monospace; text-transform: uppercase; padding: .1rem .45rem; border-radius: 4px; color: #fff; min-width: 3.6rem; text-align: center; }
  .get { background: #2f7d32; } .post { background: #1f5fa8; } .put { background: #a86b00; } .patch { background: #7a4fb0; } .delete { background: #b3261e; }
  .p { font-family: ui-monospace, monospace; } .body { padding: 0 .75rem .75rem; }
  pre { background: #f5f6f8; padding: .6rem; overflow: auto; border-radius: 4px; font-size: 12.5px; }
  table { border-collapse: collapse; } td, th { text-align: left; padding: .2rem .6rem .2rem 0; vertical-align: top; }
  .auth { font-size: 12px; background: #eef; border-radius: 4px; padding: 0 .4rem; }
</style>
</head>
<body>
<h1 id="title">Spillway API</h1>
<p class="muted" id="desc">Loading ${specUrl}…</p>
<div id="ops"></div>
<script>
(async () => {
  const el = (tag, attrs = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    for (const k of kids) e.append(k);
    return e;
  };
  const json = (v) => el('pre', {}, JSON.stringify(v, null, 2));
  try {
    const res = await fetch(${JSON.stringify(specUrl)});
    const doc = await res.json();
    document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version;
    document.getElementById('desc').textContent = doc.info.description || '';
    const byTag = new Map();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const tag = (op.tags && op.tags[0]) || 'other';
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push({ path, method, op });
      }
    }
    const root = document.getElementById('ops');
    for (const [tag, ops] of byTag) {
      root.append(el('h2', {}, tag));
      for (const { path, method, op } of ops) {
        const auth = (op.security || []).map((s) => Object.keys(s)[0]).join(' | ') || 'none';
        const body = el('div', { class: 'body' });
        if (op.description) body.append(el('p', {}, op.description));
        body.append(el('p', {}, 'Auth: ', el('span', { class: 'auth' }, auth)));
        if (op.parameters) {
          const t = el('table', {}, el('tr', {}, el('th', {}, 'parameter'), el('th', {}, 'in'), el('th', {}, 'schema')));
          for (const p of op.parameters) t.append(el('tr', {}, el('td', { class: 'p' }, p.name + (p.required ? ' *' : '')), el('td', {}, p.in), el('td', { class: 'p' }, JSON.stringify(p.schema))));
          body.append(t);
        }
        const reqSchema = op.requestBody && op.requestBody.content['application/json'].schema;
        if (reqSchema) body.append(el('h4', {}, 'Request body'), json(reqSchema));
        for (const [status, r] of Object.entries(op.responses || {})) {
          body.append(el('h4', {}, status + ' ' + r.description));
          const content = r.content && Object.values(r.content)[0];
          if (content && content.schema) body.append(json(content.schema));
        }
        root.append(el('details', {}, el('summary', {}, el('span', { class: 'm ' + method }, method), el('span', { class: 'p' }, path), el('span', { class: 'muted' }, op.summary || '')), body));
      }
    }
  } catch (err) {
    document.getElementById('desc').textContent = 'Could not load the API description: ' + err;
  }
})();
</script>
</body>
</html>
`;
}
