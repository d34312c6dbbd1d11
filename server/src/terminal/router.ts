import Router from '@koa/router';
import type { Services } from '../domain/services';
import { authenticateTerminal } from './auth';
import { cabinet } from './cabinet';
import { courierVerify, deposit } from './deposit';
import { heartbeat } from './heartbeat';
import { doorConfirm, pickup } from './pickup';
import { depositUndo } from './depositUndo';
import { doorFault } from './doorFault';
import { courierReturns, returnCollected } from './returnCollection';
import { rateLimit } from './rateLimit';
import { confirmReturnRoute, startReturnRoute } from './returns';

/** Pickup attempts per terminal per minute; returns likewise. Spec, "Limits". */
export const PICKUP_LIMIT = 10;
export const RETURN_LIMIT = 20;
/**
 * Courier-number lookups (`/courier/verify`, `/courier/returns`) per terminal per minute:
 * an extension (docs/terminal-extensions.md). A courier types their number once per visit.
 */
export const COURIER_LIMIT = 10;

/** Part A of the interface: each route reads authenticate, (limit), handle. */
export function terminalRouter(services: Services): Router {
  const { sql, authCache, logger } = services;
  const online = authenticateTerminal(sql, authCache);
  const router = new Router({ prefix: '/terminal/v1' });
  router.get('/cabinet', online, cabinet(sql));
  router.post('/pickup', online, rateLimit(sql, logger, 'pickup', PICKUP_LIMIT), pickup(services));
  router.post('/door/confirm', online, doorConfirm(services));
  const courierLimit = rateLimit(sql, logger, 'courier', COURIER_LIMIT);
  router.post('/courier/verify', online, courierLimit, courierVerify(services));
  router.post('/deposit', online, deposit(services));
  router.post(
    '/return',
    online,
    rateLimit(sql, logger, 'return', RETURN_LIMIT),
    startReturnRoute(services),
  );
  router.post('/return/confirm', online, confirmReturnRoute(services));
  // Extensions beyond the spec (docs/terminal-extensions.md).
  router.post('/door/fault', online, doorFault(services));
  router.post('/deposit/undo', online, depositUndo(services));
  router.post('/courier/returns', online, courierLimit, courierReturns(services));
  router.post('/courier/returns/collected', online, returnCollected(services));
  router.post(
    '/heartbeat',
    authenticateTerminal(sql, authCache, { allowOffline: true }),
    heartbeat(services),
  );
  return router;
}
