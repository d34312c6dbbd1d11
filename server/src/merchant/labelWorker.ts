/** A label pool thread (labelPool.ts): renders one PDF label per task. */
import { renderLabel, type LabelFacts, type PdfPage } from './label';

export interface LabelTask {
  facts: LabelFacts;
  page: PdfPage;
}

export default function render({ facts, page }: LabelTask): Promise<Buffer> {
  return renderLabel(facts, page);
}
