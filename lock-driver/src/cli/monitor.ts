import { io } from './io';
import type { FrameLogger } from '../bus';
import { withBoard } from './connect';
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
  await withBoard(
    v,
    async (board) => {
      for (;;) {
        const reading = await board.readDoors();
        for (const b of reading.boards.filter((x) => !x.reachable))
          io().stderr.write(`board ${b.board} did not answer\n`);
        await new Promise((r) => setTimeout(r, interval));
      }
    },
    { logger },
  );
  return { ok: true, json: null, text: '' };
}
