import type { Middleware } from 'koa';
import { z } from 'zod';
import type { Services } from '../services';
import { ProblemError } from '../http/problem';
import { validate } from '../http/validate';
import { renderLabelOffLoop } from './labelPool';
import { renderZplLabel } from './labelZpl';
import { ownShipment } from './shipments';

export const LABEL_FORMATS = ['pdf', 'pdf-a6', 'zpl'] as const;

export const LabelQuerySchema = z.strictObject({
  format: z.enum(LABEL_FORMATS, { error: 'must be one of pdf, pdf-a6, zpl' }).default('pdf'),
  /** Print-head resolution of a ZPL printer. */
  dpi: z.enum(['203', '300'], { error: 'must be 203 or 300' }).optional(),
});

/** GET /shipments/{id}/label?format=pdf|pdf-a6|zpl[&dpi=203|300] */
export function label(services: Services): Middleware {
  return async (ctx) => {
    const query = validate(LabelQuerySchema, { ...ctx.query }, 'validation_failed');
    if (query.dpi && query.format !== 'zpl') {
      throw new ProblemError('validation_failed', 'Invalid field(s): dpi.', [
        { field: 'dpi', code: 'not_applicable', message: 'only a zpl label has a dpi' },
      ]);
    }
    const { id } = ctx.params as { id?: string };
    const shipment = await ownShipment(services, ctx.state.organization.id, id);
    const facts = {
      shipment,
      senderName: ctx.state.organization.name,
      sandbox: ctx.state.organization.sandbox,
    };
    const name = `label-${shipment.tracking_number}`;
    switch (query.format) {
      case 'pdf':
      case 'pdf-a6':
        ctx.type = 'application/pdf';
        ctx.set('Content-Disposition', `inline; filename="${name}.pdf"`);
        ctx.body = await renderLabelOffLoop(facts, query.format);
        return;
      case 'zpl': {
        const dpi = query.dpi === '300' ? 300 : 203;
        ctx.type = 'application/zpl; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${name}-${dpi}dpi.zpl"`);
        ctx.body = renderZplLabel(facts, dpi);
        return;
      }
      default: {
        const unknown: never = query.format;
        throw new Error(`no renderer for label format ${String(unknown)}`);
      }
    }
  };
}
