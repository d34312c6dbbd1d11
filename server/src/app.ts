import Koa from 'koa';
import type { Services } from './services';
import { closeUnreadBodies } from './http/body';
import { correlationId } from './http/correlation';
import { problemResponses } from './http/errors';
import { refuseUnstorablePaths } from './http/paths';
import { requestLog } from './http/requestLog';
import { merchantRouter } from './merchant/router';
import { openApiRouter } from './openapi/router';
import { opsRouter } from './opsApi/router';
import { recipientRouter } from './recipient/page';
import { serveConsole } from './opsConsole/serve';
import { servePicker } from './picker/serve';
import { terminalRouter } from './terminal/router';

/** The HTTP application: every interface behind one chain of cross-cutting middleware. */
export function createApp(services: Services): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(correlationId);
  app.use(requestLog(services.logger));
  app.use(closeUnreadBodies);
  app.use(problemResponses());
  app.use(refuseUnstorablePaths);
  app.use(terminalRouter(services).routes());
  app.use(merchantRouter(services).routes());
  app.use(opsRouter(services).routes());
  app.use(openApiRouter().routes());
  app.use(recipientRouter(services).routes());
  app.use(servePicker());
  app.use(serveConsole(services.config));
  return app;
}
