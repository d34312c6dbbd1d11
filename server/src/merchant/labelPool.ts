import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { LabelFacts, PdfPage } from './label';
import type { LabelTask } from './labelWorker';

/**
 * PDF labels are rendered on worker threads: a label takes ≈5 ms of CPU (layout, font
 * subsetting, compression), and on the request loop every request arriving meanwhile
 * waited behind it. One core is left to the request loop (and PostgreSQL); threads that
 * sit idle do not keep the process alive, and the first is started with the first label.
 */
let pool: Piscina<LabelTask, Uint8Array> | undefined;

/** Node flags for the threads: TypeScript sources need tsx's loader, as the main thread has. */
function workerExecArgv(): string[] {
  const hasLoader = (arg: string) =>
    arg === 'tsx' || /[/\\]tsx[/\\]dist[/\\]loader\.mjs$/.test(arg);
  if (process.execArgv.some(hasLoader)) return process.execArgv;
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return [...process.execArgv, '--import', loader];
}

function labelPool(): Piscina<LabelTask, Uint8Array> {
  pool ??= new Piscina<LabelTask, Uint8Array>({
    filename: new URL('./labelWorker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: Math.max(1, availableParallelism() - 1),
    // Fonts are parsed once per thread (≈25 ms): keep a thread while labels keep coming.
    idleTimeout: 60_000,
    execArgv: workerExecArgv(),
  });
  return pool;
}

/** The label as a PDF (label.ts), rendered off the request loop. */
export async function renderLabelOffLoop(facts: LabelFacts, page: PdfPage): Promise<Buffer> {
  const pdf = await labelPool().run({ facts, page });
  return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
}
