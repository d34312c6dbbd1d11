import Router from '@koa/router';
import type { Services } from '../services';
import { authenticateTerminal } from './auth';
import { cabinet } from './cabinet';
import { courierVerify, deposit } from './deposit';
import { heartbeat } from './heartbeat';
import { offlineDeposit, offlineDeposits, offlinePickups } from './offline';
import { doorConfirm, pickup } from './pickup';
import { depositUndo } from './depositUndo';
import { doorParcels, sharedDeposit, sharedDepositCheck } from './sharedDoor';
import { doorFault } from './doorFault';
import { cabinetEvent, doorEvent } from './doorEvents';
import { courierReturns, returnCollected } from './returnCollection';
import { rateLimit } from './rateLimit';
import { confirmReturnRoute, startReturnRoute } from './returns';
import { uploadLogBundle } from '../link/logBundles';
import { enrol } from './enrolment';
import { credentials } from './credentials';
import { updateAssignment, updateBundle, updateReport } from '../updates/releases';

import { depositAlternatives, depositReroute } from '../capacity/reroute';
import { COURIER_LIMIT } from './limits';

export { COURIER_LIMIT, PICKUP_LIMIT, RETURN_LIMIT } from './limits';

/** Part A of the interface: each route reads authenticate, (limit), handle. */
export function terminalRouter(services: Services): Router {
  const { sql, authCache } = services;
  const online = authenticateTerminal(sql, authCache);
  const router = new Router({ prefix: '/terminal/v1' });
  router.get('/cabinet', online, cabinet(sql));
  // The pickup judges its rate limit inside its own statement (pickup.ts).
  router.post('/pickup', online, pickup(services));
  router.post('/door/confirm', online, doorConfirm(services));
  const courierLimit = rateLimit(sql, 'courier', COURIER_LIMIT);
  router.post('/courier/verify', online, courierLimit, courierVerify(services));
  router.post('/deposit', online, deposit(services));
  // The return judges its rate limit inside its read (returns.ts).
  router.post('/return', online, startReturnRoute(services));
  router.post('/return/confirm', online, confirmReturnRoute(services));
  // Extensions beyond the spec (docs/terminal-extensions.md).
  router.post('/door/fault', online, doorFault(services));
  router.post('/deposit/undo', online, depositUndo(services));
  // Issue 27: several parcels, one door, one code (sharedDoor.ts).
  router.post('/deposit/shared/check', online, courierLimit, sharedDepositCheck(services));
  router.post('/deposit/shared', online, sharedDeposit(services));
  router.post('/pickup/door-parcels', online, doorParcels(services));
  // Overflow (issue 27): a full station offers the nearest with room; the parcel follows.
  router.post('/deposit/alternatives', online, courierLimit, depositAlternatives(services));
  router.post('/deposit/reroute', online, depositReroute(services));
  router.post('/doors/:door/events', online, doorEvent(services));
  router.post('/cabinet/events', online, cabinetEvent(services));
  router.post('/courier/returns', online, courierLimit, courierReturns(services));
  router.post('/courier/returns/collected', online, returnCollected(services));
  // Enrolment: no device token yet; the code and a per-address limit stand in for it.
  router.post('/enrol', enrol(services));
  router.post('/credentials', online, credentials(services));
  router.get('/update', online, updateAssignment(services));
  router.get('/update/bundle/:version', online, updateBundle(services));
  router.post('/update/report', online, updateReport(services));
  // The live link's upload (docs/terminal-extensions.md); the link itself is an upgrade
  // of `GET /terminal/v1/link`, handled beside Koa (link/hub.ts).
  router.post('/link/logs/:commandId', online, uploadLogBundle(sql));
  // A locker that works on its own through an outage ("Offline operation").
  router.get('/offline/pickups', online, offlinePickups(services));
  router.get('/offline/deposits', online, offlineDeposits(services));
  router.post('/offline/deposit', online, offlineDeposit(services));
  router.post(
    '/heartbeat',
    authenticateTerminal(sql, authCache, { allowOffline: true }),
    heartbeat(services),
  );
  return router;
}
