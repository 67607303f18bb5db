import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Router } from 'express';
import { SWAGGER_UI_A11Y_CSS, SWAGGER_UI_A11Y_SCRIPT, swaggerUiPage } from '#shared/http/apiDocs.ts';

/**
 * swagger-ui-dist's folder, found without loading the package: its main module evaluates the
 * 1.5 MB UI bundle in the server process, which only needs the files.
 */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * swagger-ui's start script, pointed at our document instead of the petstore; no CDN, works
 * offline. The base layout, as the control-plane's: the standalone one's "Explore" bar (a URL box
 * for loading other documents) is of no use here and fails contrast and labelling; no deep links,
 * for the reason apiDocs.ts gives.
 */
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#docs',
    deepLinking: false,
  });
};
${SWAGGER_UI_A11Y_SCRIPT}`;

const PAGE = swaggerUiPage('Forja padrón lookup API', './', './swagger-initializer.js');

/** `/docs`: the interactive description, served from the swagger-ui-dist package. */
export function docsRouter(): Router {
  const router = express.Router({ strict: true });
  // The page's assets are relative (./swagger-ui.css), so it must be served below /docs/.
  router.get('/docs', (_req, res) => res.redirect(301, '/docs/'));
  router.get('/docs/', (_req, res) => res.type('html').send(PAGE));
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(INITIALIZER);
  });
  router.get('/docs/forja-docs.css', (_req, res) => res.type('css').send(SWAGGER_UI_A11Y_CSS));
  router.use('/docs', express.static(SWAGGER_UI_DIR, { index: false, fallthrough: true }));
  return router;
}
