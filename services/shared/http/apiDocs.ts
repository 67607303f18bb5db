import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Request, Response } from 'express';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png']);

/**
 * Interactive API documentation served entirely offline from the swagger-ui-dist package: a page
 * at `/docs`, its assets at `/docs/assets/:file`, and the start-up script as an asset too, so a
 * strict Content-Security-Policy (no inline script) holds.
 */
export function apiDocs(title: string, specUrl: string) {
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="docs"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#docs', deepLinking: true });\n`;
  return {
    page(_req: Request, res: Response): void {
      res.type('html').send(page);
    },
    asset(req: Request, res: Response): void {
      const file = String(req.params['file']);
      if (file === 'init.js') return void res.type('js').send(init);
      if (!ASSETS.has(file)) return void res.status(404).json({ detail: 'no such asset' });
      res.sendFile(file, { root: swaggerDir, maxAge: '1d' });
    },
  };
}
