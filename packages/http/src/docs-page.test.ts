import { describe, expect, it } from 'vitest';
import { DOCS_PACKAGE_MISSING, docsConfiguration, renderDocsPage, resolveDocsScript } from './docs-page.ts';

describe('the /docs page', () => {
  it("turns off Scalar's AI agent (its chat uploads the document to Scalar), telemetry, fonts and developer tools", () => {
    expect(docsConfiguration('openapi.json')).toMatchObject({
      agent: { disabled: true },
      telemetry: false,
      withDefaultFonts: false,
      showDeveloperTools: 'never',
    });
    expect(renderDocsPage()).toContain('"agent":{"disabled":true}');
  });

  it('says what to install when its script does not load, and creates no reference then', () => {
    const page = renderDocsPage();
    expect(page).toMatch(/<script src="docs\/scalar\.js" onerror="[^"]*needs the package @scalar\/api-reference/);
    expect(page).toContain('if (window.Scalar) Scalar.createApiReference(');
  });

  it('answers not_configured (501) naming the package when @scalar/api-reference is not installed', () => {
    const notFound = () => {
      throw Object.assign(new Error("Cannot find module '@scalar/api-reference/browser/standalone.js'"), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => resolveDocsScript(notFound)).toThrow(
      expect.objectContaining({ code: 'not_configured', status: 501, message: DOCS_PACKAGE_MISSING }),
    );
    expect(DOCS_PACKAGE_MISSING).toContain('npm install @scalar/api-reference');
    expect(resolveDocsScript((id) => `/x/${id}`)).toBe('/x/@scalar/api-reference/browser/standalone.js');
  });
});
