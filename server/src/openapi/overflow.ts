import {
  DepositAlternativesRequestSchema,
  DepositAlternativesResponseSchema,
  DepositRerouteRequestSchema,
  DepositRerouteResponseSchema,
  StationFullProblemSchema,
} from '@locker/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { examples } from './examples';
import { body, json, Problem, problems } from './parts';

const terminal = { tags: ['terminal'], security: [{ deviceToken: [] }] };

/** Issue 27's overflow: a full station's kiosk offers the nearest with room; the parcel follows. */
export function overflowPaths(): ZodOpenApiPathsObject {
  return {
    '/terminal/v1/deposit/alternatives': {
      post: {
        ...terminal,
        operationId: 'listDepositAlternatives',
        summary:
          'Extension: after a 409 `cabinet_full`, the nearest stations (at most 3, within 10 km) with a door free now that the parcel fits',
        requestBody: body(
          DepositAlternativesRequestSchema,
          examples.listDepositAlternatives.request,
        ),
        responses: {
          '200': json(
            DepositAlternativesResponseSchema,
            'Nearest first; empty when none near has room',
            examples.listDepositAlternatives.response,
          ),
          ...problems('terminal', [403, 404, 429], true),
        },
      },
    },
    '/terminal/v1/deposit/reroute': {
      post: {
        ...terminal,
        operationId: 'rerouteDeposit',
        summary:
          'Extension: the parcel this station cannot take goes to `stationCode` instead: a door is held there, the recipient gets an SMS with the new address, the merchant `shipment.rerouted`. A retry answers the same and sends nothing again',
        requestBody: body(DepositRerouteRequestSchema, examples.rerouteDeposit.request),
        responses: {
          '200': json(
            DepositRerouteResponseSchema,
            'Rerouted; where to take the parcel',
            examples.rerouteDeposit.response,
          ),
          ...problems('terminal', [403, 404], true),
          '409': {
            description:
              'Problem details: `station_full`: the chosen station has no door free for the parcel any more; `nearest_stations_with_room` lists the others that do',
            content: {
              'application/problem+json': { schema: z.union([Problem, StationFullProblemSchema]) },
            },
          },
        },
      },
    },
  };
}
