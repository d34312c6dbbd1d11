import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { LRUCache } from 'lru-cache';
import { Piscina } from 'piscina';
import type { LabelFacts, PdfPage } from './label';
import type { LabelTask } from './labelWorker';
import type { ShipmentView } from '../shipments/view';

/**
 * PDF labels are rendered on worker threads: a label took ≈5 ms of CPU (layout, font
 * subsetting, compression; ≈1 ms from the template now), and on the request loop every
 * request arriving meanwhile waited behind it. As many threads as cores: one left the
 * labels of a busy box queueing behind it whenever it waited for a core (issue 28: at
 * 40 % of the peak hour, 77 % busy, a label's p99 122–78 ms with two threads against
 * 255–322 ms with one). Threads that sit idle do not keep the process alive, and the
 * first is started with the first label.
 */
let pool: Piscina<LabelTask, Uint8Array> | undefined;

/**
 * Node flags for the threads: the main thread's module loaders (TypeScript sources need
 * tsx's, as the main thread has), and nothing else. A process-wide flag (`--trace-gc`,
 * `--cpu-prof`, `--max-old-space-size`…) makes `new Worker` throw, and every label with it.
 */
export function workerExecArgv(
  execArgv: readonly string[] = process.execArgv,
  tsxLoader = () => pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
): string[] {
  const loaders: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const flag =
      /^(--import|--require|-r|--loader|--experimental-loader|--conditions|-C)(=.*)?$/.exec(arg);
    if (!flag) continue;
    loaders.push(arg);
    if (flag[2] === undefined && i + 1 < execArgv.length) loaders.push(execArgv[++i]!);
  }
  const hasTsx = (arg: string) => arg === 'tsx' || /[/\\]tsx[/\\]dist[/\\]loader\.mjs$/.test(arg);
  if (loaders.some((arg) => hasTsx(arg.replace(/^--[a-z-]+=/, '')))) return loaders;
  return [...loaders, '--import', tsxLoader()];
}

function labelPool(): Piscina<LabelTask, Uint8Array> {
  pool ??= new Piscina<LabelTask, Uint8Array>({
    filename: new URL('./labelWorker.ts', import.meta.url).href,
    // A thread starts in ≈0.2 s under load (its modules, then the fonts): once the first
    // label has started one, it stays (idle, it does not keep the process alive).
    minThreads: 1,
    maxThreads: availableParallelism(),
    idleTimeout: 60_000,
    execArgv: workerExecArgv(),
  });
  return pool;
}

/**
 * Labels rendered lately, by shipment and page: a merchant printing a label again (a
 * jammed printer, a second copy) gets the same PDF without a render. An entry is used
 * only while everything the label shows is unchanged (`printed`), so a renamed station or
 * a corrected recipient is rendered anew. Bounded by bytes (a label is ≈20 kB).
 */
const rendered = new LRUCache<string, { printed: string; pdf: Buffer }>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (entry) => entry.pdf.length + entry.printed.length,
});

/** Every value label.ts prints, in one string. */
function printed({ shipment, senderName }: LabelFacts): string {
  return JSON.stringify([
    senderName,
    shipment.tracking_number,
    shipment.station_name,
    shipment.station_code,
    shipment.cabinet_sn,
    shipment.parcel_size,
    shipment.recipient_name,
    shipment.merchant_order_reference,
    shipment.created_at.toISOString(),
    shipment.recipient_language,
  ]);
}

/**
 * Starts the label thread and has it render one label nobody asked for, so that the first
 * merchant's label after a start does not wait for the thread's modules and fonts (≈1 s
 * under load: the peak-hour bench's label p99 was that wait). The production entry point
 * calls it; tests leave it to the first label.
 */
export async function warmLabelPool(): Promise<void> {
  const now = new Date();
  const shipment: ShipmentView = {
    id: '00000000-0000-0000-0000-000000000000',
    organization_id: '00000000-0000-0000-0000-000000000000',
    tracking_number: 'PL000000000000',
    status: 'booked',
    destination_station_id: '00000000-0000-0000-0000-000000000000',
    station_code: 'WARM-UP',
    // Letters of the four languages, so the common glyphs are read into the cache too.
    station_name: 'Łódź Çarşı Šabac Gjirokastër',
    cabinet_sn: 'CAB-0',
    slot_no: null,
    parcel_size: 'M',
    recipient_name: 'Ćirić Ağaoğlu Ëlla',
    recipient_phone: '+48000000000',
    recipient_language: 'en',
    merchant_order_reference: 'WARM-UP',
    created_at: now,
    updated_at: now,
    accessible_door: false,
    reserved_until: null,
  };
  await labelPool().run({ facts: { shipment, senderName: 'Warm-up' }, page: 'pdf' });
}

/** The label as a PDF (label.ts), rendered off the request loop or found rendered. */
export async function renderLabelOffLoop(facts: LabelFacts, page: PdfPage): Promise<Buffer> {
  const key = `${facts.shipment.id} ${page}`;
  const shows = printed(facts);
  const cached = rendered.get(key);
  if (cached?.printed === shows) return cached.pdf;
  const pdf = await labelPool().run({ facts, page });
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  rendered.set(key, { printed: shows, pdf: bytes });
  return bytes;
}
