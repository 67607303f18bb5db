import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Request, Response } from 'express';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png']);

/**
 * Swagger UI's deep links (an operation's `#/tag/operation` address) are links inside the button
 * that opens the operation, which no keyboard or screen reader can tell apart (WCAG 4.1.2, axe's
 * nested-interactive): the pages start it with `deepLinking: false`.
 *
 * What Forja adds to Swagger UI's page for accessibility, run after its start-up script: the
 * servers `<select>` gets a name (Swagger UI wraps it in an empty `<label>`, WCAG 4.1.2) each time
 * Swagger UI renders it.
 */
export const SWAGGER_UI_A11Y_SCRIPT = `new MutationObserver(function () {
  var servers = document.getElementById('servers');
  if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
}).observe(document.body, { childList: true, subtree: true });
`;

/**
 * Swagger UI's colours that fall under WCAG AA contrast (the method badges, the version badges, the
 * document's link, the Authorize button, the schema expanders), darkened; loaded after its CSS.
 */
export const SWAGGER_UI_A11Y_CSS = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0550ae; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7f37; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a6700; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #cf222e; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0e7a6d; }
.swagger-ui .opblock:is(.opblock-head, .opblock-options) .opblock-summary-method { background: #57606a; }
.swagger-ui .info .title small { background: #57606a; }
.swagger-ui .info .title small.version-stamp { background: #3d6b00; }
.swagger-ui .info a.link, .swagger-ui .info .url, .swagger-ui .info a { color: #0550ae; }
.swagger-ui .btn.authorize, .swagger-ui .btn.authorize span { color: #1a7f37; border-color: #1a7f37; }
.swagger-ui .btn.authorize svg { fill: #1a7f37; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #57606a; }
`;

/**
 * The page around Swagger UI: `assets` is where its files are (with a trailing slash) and
 * `init` the script that starts it; no inline script or style, so a strict
 * Content-Security-Policy holds.
 */
export function swaggerUiPage(title: string, assets: string, init: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${assets}swagger-ui.css">
<link rel="stylesheet" href="${assets}forja-docs.css">
<link rel="icon" href="${assets}favicon-32x32.png">
</head>
<body>
<div id="docs"></div>
<script src="${assets}swagger-ui-bundle.js"></script>
<script src="${init}"></script>
</body>
</html>
`;
}

/**
 * Interactive API documentation served entirely offline from the swagger-ui-dist package: a page
 * at `/docs`, its assets at `/docs/assets/:file`, and the start-up script as an asset too, so a
 * strict Content-Security-Policy (no inline script) holds.
 */
export function apiDocs(title: string, specUrl: string) {
  const page = swaggerUiPage(title, '/docs/assets/', '/docs/assets/init.js');
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#docs', deepLinking: false });\n${SWAGGER_UI_A11Y_SCRIPT}`;
  return {
    page(_req: Request, res: Response): void {
      res.type('html').send(page);
    },
    asset(req: Request, res: Response): void {
      const file = String(req.params['file']);
      if (file === 'init.js') return void res.type('js').send(init);
      if (file === 'forja-docs.css') return void res.type('css').send(SWAGGER_UI_A11Y_CSS);
      if (!ASSETS.has(file)) return void res.status(404).json({ detail: 'no such asset' });
      res.sendFile(file, { root: swaggerDir, maxAge: '1d' });
    },
  };
}
