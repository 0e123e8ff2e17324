// /docs: Swagger UI on the consumers' contract (/openapi.json), from the swagger-ui-dist
// package (no CDN, so the page works offline and behind egress filters; design.md §9). Only
// the handful of files the page uses are served, under a Content-Security-Policy that
// forbids inline scripts: the initializer is a file of its own for that reason.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

// Swagger UI styles elements at run time and draws icons from data: URLs; "Try it out"
// calls this same origin (the served contract's `servers` entry is the request's host).
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// Relative URLs, resolved against /docs, keep the page working under a proxy's path prefix.
const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>impianti-api — API documentation</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: otherwise the page would send the contract to validator.swagger.io.
const initializer = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  // Shows the x- marks readers need: x-case-insensitive-properties on request schemas,
  // x-roles and x-public on operations. The page reads the consumers' contract, each
  // operation once; its externalDocs link to the routes document (design.md §2).
  showExtensions: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

export function docsRoutes(): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use('/docs', (_req, res, next) => {
    res.set({ 'Content-Security-Policy': contentSecurityPolicy, 'Referrer-Policy': 'no-referrer' });
    next();
  });
  router.get('/docs', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').send(initializer);
  });
  for (const file of assets) {
    router.get(`/docs/${file}`, (_req, res, next) => {
      res.sendFile(path.join(distDir, file), { maxAge: '1h' }, (err) => { if (err) next(err); });
    });
  }
  return router;
}
