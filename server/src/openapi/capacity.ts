import {
  StorageSchema,
  ShipmentSchema,
  StationFinderResultSchema,
  StationFinderQuerySchema,
} from '@locker/shared';
import { z } from 'zod';
import type {
  ZodOpenApiPathsObject,
  ZodOpenApiResponseObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';

type Json = (schema: z.ZodType, description: string) => ZodOpenApiResponseObject;
type Problems = (...statuses: number[]) => ZodOpenApiResponsesObject;

const Id = z.object({ id: z.guid() });
const merchant = { tags: ['merchant'], security: [{ apiKey: [] }] };

/** Issue 27's merchant routes: the locker finder, cancelling a booking, extending storage. */
export function capacityPaths(json: Json, problems: Problems): ZodOpenApiPathsObject {
  return {
    '/api/v1/stations': {
      get: {
        ...merchant,
        summary:
          'The locker finder: stations nearest `near` first, with place, hours and free doors per size on `day`',
        requestParams: {
          query: z.object({
            near: z
              .string()
              .meta({ description: 'latitude,longitude', example: '42.6629,21.1655' }),
            day: z.string().optional().meta({ description: 'YYYY-MM-DD; today when omitted' }),
            size: StationFinderQuerySchema.shape.size,
            accessible: StationFinderQuerySchema.shape.accessible,
            limit: z.number().int().min(1).max(50).optional(),
            cursor: z.string().optional(),
          }),
        },
        responses: {
          '200': json(StationFinderResultSchema, 'One page, nearest first'),
          ...problems(401, 422, 429),
        },
      },
    },
    '/api/v1/shipments/{id}/cancel': {
      post: {
        ...merchant,
        summary:
          'Cancel a booking before its deposit: its reserved door is released, shipment.cancelled is sent; a repeat answers the cancelled shipment',
        requestParams: { path: Id },
        responses: {
          '200': json(ShipmentSchema, 'The cancelled shipment'),
          ...problems(401, 404, 409, 429),
        },
      },
    },
    '/api/v1/shipments/{id}/extend': {
      post: {
        ...merchant,
        summary:
          "Extend a parcel's storage once by its station's extension hours (free and maximum storage alike); shipment.storage_extended is sent",
        requestParams: { path: Id },
        responses: {
          '200': json(StorageSchema, 'The new deadlines'),
          ...problems(401, 404, 409, 429),
        },
      },
    },
  };
}
