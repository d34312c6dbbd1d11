import Router from '@koa/router';
import type { Services } from '../services';
import { authenticateOrganization } from './auth';
import { bulkCreateShipments } from './bulk';
import { listEvents, redeliverEvent } from './events';
import { label } from './labelRoute';
import { createShipment, getShipment, listShipments } from './shipments';
import { advanceSandboxShipment, sandboxStations } from '../sandbox/routes';
import { track } from './tracking';
import { cancelShipment } from '../capacity/cancel';
import { extendShipmentStorage } from '../capacity/extend';
import { findStations } from '../capacity/finder';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enableWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
} from './webhookEndpoints';

/**
 * Part B of the interface: authenticate and limit (one statement), handle; all scoped to
 * the key's organization.
 */
export function merchantRouter(services: Services): Router {
  const { sql, config } = services;
  const router = new Router({ prefix: '/api/v1' });
  const guard = [authenticateOrganization(sql, config.merchantRequestsPerMinute)];
  router.post('/shipments', ...guard, createShipment(services));
  router.post('/shipments/bulk', ...guard, bulkCreateShipments(services));
  router.get('/shipments', ...guard, listShipments(services));
  router.get('/shipments/:id', ...guard, getShipment(services));
  router.get('/shipments/:id/label', ...guard, label(services));
  // Issue 27: capacity (the locker finder, cancelling a booking).
  router.get('/stations', ...guard, findStations(services));
  router.post('/shipments/:id/cancel', ...guard, cancelShipment(services));
  router.post('/shipments/:id/extend', ...guard, extendShipmentStorage(services));
  router.get('/track/:trackingNumber', ...guard, track(services));
  router.get('/events', ...guard, listEvents(services));
  router.post('/events/:id/redeliver', ...guard, redeliverEvent(services));
  router.post('/webhooks', ...guard, createWebhookEndpoint(services));
  router.get('/webhooks', ...guard, listWebhookEndpoints(services));
  router.post('/webhooks/:id/rotate-secret', ...guard, rotateWebhookSecret(services));
  router.post('/webhooks/:id/enable', ...guard, enableWebhookEndpoint(services));
  router.delete('/webhooks/:id', ...guard, deleteWebhookEndpoint(services));
  router.get('/sandbox/stations', ...guard, sandboxStations(services));
  router.post('/sandbox/shipments/:id/advance', ...guard, advanceSandboxShipment(services));
  return router;
}
