import { io } from './io';
import type { FrameLogger } from '../bus';
import { withBoard } from './connect';
import { LockDriverError } from '../errors';
import type { Output } from './commands';
import { RANGES, int, type Values } from './options';

/**
 * Every byte on the line: frames sent and received, and what was not a good frame
 * (noise, bad checksums), each marked. Polls the cabinet's boards until Ctrl-C.
 */
export async function monitor(v: Values): Promise<Output> {
  const interval = int(v, 'interval', RANGES.intervalMs, 1000);
  const print = (entry: { at: Date; direction: string; frame: string; note?: string }) => {
    const line = v.json
      ? JSON.stringify({ ...entry, at: entry.at.toISOString() })
      : `${entry.at.toISOString()}  ${entry.direction === 'tx' ? '→' : '←'}  ${entry.frame}${entry.note ? `   <- ${entry.note}` : ''}`;
    io().stdout.write(line + '\n');
  };
  const logger: FrameLogger = {
    frame: (direction, _b, frame, at) => print({ at, direction, frame }),
    discarded: (_b, why, frame, at) =>
      print({
        at,
        direction: 'rx',
        frame,
        note: why === 'noise' ? 'noise (not a frame)' : 'BAD CHECKSUM (frame dropped)',
      }),
  };
  // A technician wiggling a connector: an adapter unplugged or a gateway gone once the
  // monitor runs is waited for, and it resumes when it is back. One not there at the start
  // is a sentence and exit 1, as for every other command: a mistyped port waits for nothing.
  const reconnect = {
    waitForPort: false,
    log: (_level: 'info' | 'warn', message: string) => io().stderr.write(`${message}\n`),
  };
  await withBoard(
    v,
    async (board) => {
      let away = false;
      for (;;) {
        try {
          const reading = await board.readDoors();
          if (away) io().stderr.write('the line is back: monitoring again\n');
          away = false;
          for (const b of reading.boards.filter((x) => !x.reachable))
            io().stderr.write(`board ${b.board} did not answer\n`);
        } catch (error) {
          if (!(error instanceof LockDriverError && error.code === 'DISCONNECTED')) throw error;
          if (!away)
            io().stderr.write(
              `${error.message}: waiting for the adapter or gateway to come back (Ctrl-C to stop)\n`,
            );
          away = true;
        }
        await new Promise((r) => setTimeout(r, interval));
      }
    },
    { logger, reconnect },
  );
  return { ok: true, json: null, text: '' };
}
