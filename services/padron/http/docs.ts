import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Router } from 'express';

/**
 * swagger-ui-dist's folder, found without loading the package: its main module evaluates the
 * 1.5 MB UI bundle in the server process, which only needs the files.
 */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** swagger-ui's start script, pointed at our document instead of the petstore; no CDN, works offline. */
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

/** `/docs`: the interactive description, served from the swagger-ui-dist package. */
export function docsRouter(): Router {
  const router = express.Router({ strict: true });
  // The page's assets are relative (./swagger-ui.css), so it must be served below /docs/.
  router.get('/docs', (_req, res) => res.redirect(301, '/docs/'));
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(INITIALIZER);
  });
  router.use('/docs', express.static(SWAGGER_UI_DIR, { index: 'index.html', fallthrough: true }));
  return router;
}
