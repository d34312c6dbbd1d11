import Router from '@koa/router';
import { openApiDocument } from './document';

/** GET /openapi.json, public: it documents, it grants nothing. */
export function openApiRouter(): Router {
  const document = JSON.stringify(openApiDocument());
  const router = new Router();
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
  return router;
}
