import {
  DoorParcelsRequestSchema,
  DoorParcelsResponseSchema,
  SharedDepositCheckRequestSchema,
  SharedDepositCheckResponseSchema,
  SharedDepositRequestSchema,
  SharedDepositResponseSchema,
} from '@locker/shared';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { terminalPost } from './document';
import { Problem } from './parts';

const NOT_SHAREABLE = {
  description:
    'Problem details: `door_not_shareable`, its `reason` one of `not_this_visit`, `other_recipient`, `does_not_fit`, `door_unsuitable`; nothing changed',
  content: { 'application/problem+json': { schema: Problem } },
};

/** Issue 27's terminal extensions: several parcels, one door, one code. */
export function sharedDoorPaths(): ZodOpenApiPathsObject {
  const shared = terminalPost(
    'depositShared',
    'Extension: the parcel joins the door of a parcel the courier deposited in this visit for the same person; it takes that door’s code (no code SMS)',
    SharedDepositRequestSchema,
    SharedDepositResponseSchema,
    [403, 404, 409],
  );
  return {
    '/terminal/v1/deposit/shared/check': terminalPost(
      'checkSharedDeposit',
      'Extension: may the parcel join that door? Changes nothing; the kiosk asks the courier only when it may',
      SharedDepositCheckRequestSchema,
      SharedDepositCheckResponseSchema,
      [403, 404, 429],
    ),
    '/terminal/v1/deposit/shared': {
      post: {
        ...shared.post,
        responses: { ...shared.post.responses, '409': NOT_SHAREABLE },
      },
    },
    '/terminal/v1/pickup/door-parcels': terminalPost(
      'listDoorParcels',
      'Extension: every parcel awaiting pickup in the door of the one a pickup named, that one first; each is confirmed on its own',
      DoorParcelsRequestSchema,
      DoorParcelsResponseSchema,
      [404],
    ),
  };
}
