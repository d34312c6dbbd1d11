import {
  StorageSchema,
  ShipmentSchema,
  StationFinderResultSchema,
  StationFinderQuerySchema,
  text,
} from '@locker/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { examples, ids } from './examples';
import { json, problems } from './parts';

const Id = z.object({ id: z.guid().meta({ example: ids.shipment }) });
const merchant = { tags: ['merchant'], security: [{ apiKey: [] }] };

/** Issue 27's merchant routes: the locker finder, cancelling a booking, extending storage. */
export function capacityPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/stations': {
      get: {
        ...merchant,
        operationId: 'listStations',
        summary:
          'The locker finder: stations nearest `near` first, with place, hours and free doors per size on `day`',
        requestParams: {
          query: z.object({
            near: text().meta({ description: 'latitude,longitude', example: '42.6629,21.1655' }),
            day: text().optional().meta({ description: 'YYYY-MM-DD; today when omitted' }),
            size: StationFinderQuerySchema.shape.size,
            accessible: StationFinderQuerySchema.shape.accessible,
            limit: z.number().int().min(1).max(50).optional(),
            cursor: text().optional(),
          }),
        },
        responses: {
          '200': json(
            StationFinderResultSchema,
            'One page, nearest first',
            examples.listStations.response,
          ),
          ...problems('merchant', [422], false),
        },
      },
    },
    '/api/v1/shipments/{id}/cancel': {
      post: {
        ...merchant,
        operationId: 'cancelShipment',
        summary:
          'Cancel a booking before its deposit: its reserved door is released, shipment.cancelled is sent; a repeat answers the cancelled shipment',
        requestParams: { path: Id },
        responses: {
          '200': json(ShipmentSchema, 'The cancelled shipment', examples.cancelShipment.response),
          ...problems('merchant', [404, 409], false),
        },
      },
    },
    '/api/v1/shipments/{id}/extend': {
      post: {
        ...merchant,
        operationId: 'extendShipment',
        summary:
          "Extend a parcel's storage once by its station's extension hours (free and maximum storage alike); shipment.storage_extended is sent",
        requestParams: { path: Id },
        responses: {
          '200': json(StorageSchema, 'The new deadlines', examples.extendShipment.response),
          ...problems('merchant', [404, 409], false),
        },
      },
    },
  };
}
