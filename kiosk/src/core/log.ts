// pino-roll ships no types, and an ambient declaration cannot be imported: the reference
// carries it into every program that reads this file (test/'s included), not only kiosk's.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./pino-roll.d.ts" />
import path from 'node:path';
import pino, { type Logger } from 'pino';
import pinoRoll from 'pino-roll';

export type KioskLog = Logger;

export interface KioskLogOptions {
  /** Also write to stdout (the default; tests turn it off). */
  stdout?: boolean;
  level?: string;
}

/** A week of daily files at most 10 MB each: enough to follow a support case back. */
const ROTATION = { frequency: 'daily', size: '10m', limit: { count: 7 } } as const;

/**
 * The kiosk's log: JSON lines to `<dataDir>/logs/kiosk.N.log`, rotated daily and by
 * size (pino-roll), and to stdout. Written on the main thread, not a worker transport,
 * so the Electron bundle needs no extra files.
 */
export async function createKioskLog(dataDir: string, options: KioskLogOptions = {}) {
  const file = await pinoRoll({
    file: path.join(dataDir, 'logs', 'kiosk'),
    extension: '.log',
    mkdir: true,
    ...ROTATION,
  });
  const streams: pino.StreamEntry[] = [{ stream: file }];
  if (options.stdout ?? true) streams.push({ stream: process.stdout });
  const destinations = pino.multistream(streams);
  const log = pino({ level: options.level ?? 'info', base: { app: 'kiosk' } }, destinations);
  const close = () =>
    new Promise<void>((resolve) => {
      // A request still in flight when the kiosk stops may log after this: its line must
      // not reach the ended file, where it would throw "SonicBoom destroyed".
      const entry = (destinations.streams as (pino.StreamEntry & { id?: number })[]).find(
        (s) => s.stream === file,
      );
      if (entry?.id !== undefined) destinations.remove(entry.id);
      file.once('close', () => resolve());
      file.end();
    });
  return { log, close };
}
