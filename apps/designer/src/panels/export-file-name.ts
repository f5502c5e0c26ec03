/**
 * The name a route is exported under: its id, or else its name, as letters, digits, `_` and single
 * dashes (`chat, then sms (designer)` → `chat-then-sms-designer.route.json`), never a dash at
 * either end; `route` when nothing is left.
 */
export function exportFileName(route: { id?: string | undefined; name: string }): string {
  const base = (route.id ?? route.name)
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
  return `${base || 'route'}.route.json`;
}
