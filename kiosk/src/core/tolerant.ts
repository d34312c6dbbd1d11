import {
  CabinetResponseSchema,
  CourierReturnsResponseSchema,
  CourierVerifyResponseSchema,
  CredentialsResponseSchema,
  DepositAlternativesResponseSchema,
  DepositRerouteResponseSchema,
  DepositResponseSchema,
  OfflineDepositsResponseSchema,
  OfflinePickupsResponseSchema,
  OkResponseSchema,
  PickupResponseSchema,
  ReturnResponseSchema,
  TerminalConfigSchema,
} from '@locker/shared';
import { z } from 'zod';

/**
 * The same schema, but every object in it ignores fields it does not know. Requests stay
 * strict (the spec: "all bodies reject unknown fields"); answers are read tolerantly, so a
 * service that adds a field never stops a kiosk. Every field the kiosk needs is still
 * checked as strictly as before.
 */
export function tolerant<S extends z.ZodType>(schema: S): S {
  return loosen(schema) as S;
}

function loosen(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, loosen(v)]),
    );
    return z.object(shape);
  }
  if (schema instanceof z.ZodArray) return z.array(loosen(schema.element as z.ZodType));
  if (schema instanceof z.ZodNullable) return loosen(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodOptional) return loosen(schema.unwrap() as z.ZodType).optional();
  return schema;
}

/** The answers of the terminal interface, as the kiosk reads them. */
export const Answers = {
  config: tolerant(TerminalConfigSchema),
  cabinet: tolerant(CabinetResponseSchema),
  pickup: tolerant(PickupResponseSchema),
  ok: tolerant(OkResponseSchema),
  courierVerify: tolerant(CourierVerifyResponseSchema),
  deposit: tolerant(DepositResponseSchema),
  depositAlternatives: tolerant(DepositAlternativesResponseSchema),
  depositReroute: tolerant(DepositRerouteResponseSchema),
  return: tolerant(ReturnResponseSchema),
  courierReturns: tolerant(CourierReturnsResponseSchema),
  credentials: tolerant(CredentialsResponseSchema),
  offlinePickups: tolerant(OfflinePickupsResponseSchema),
  offlineDeposits: tolerant(OfflineDepositsResponseSchema),
};
