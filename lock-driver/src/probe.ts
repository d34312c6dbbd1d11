import { defaultCabinet } from './cabinet/schema';
import { LockBoard } from './lockBoard';
import { BAUD_RATES, type BaudRate } from './protocol/frame';
import type { Transport } from './transport/transport';

/**
 * Which baud rate the boards answer at: a broadcast status at each rate the board can be
 * set to, in turn. Boards on a wrong rate read garbage and stay silent.
 */
export async function probeBaudRates(
  transportAt: (baud: BaudRate) => Transport,
  listenMs = 400,
): Promise<{ baud: BaudRate; boards: number[] }[]> {
  const results: { baud: BaudRate; boards: number[] }[] = [];
  for (const baud of BAUD_RATES) {
    const board = await LockBoard.connect({
      transport: transportAt(baud),
      cabinet: defaultCabinet(1),
    });
    try {
      results.push({ baud, boards: await board.scan(listenMs) });
    } finally {
      await board.close();
    }
  }
  return results;
}
