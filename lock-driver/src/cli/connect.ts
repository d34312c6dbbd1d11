import type { FrameLogger } from '../bus';
import { loadCabinetFile } from '../cabinet/file';
import { CabinetSchema, type Cabinet } from '../cabinet/schema';
import { LockBoard } from '../lockBoard';
import { serialTransport } from '../transport/serial';
import { tcpTransport } from '../transport/tcp';
import type { Transport } from '../transport/transport';
import { RANGES, UsageError, baud, int, str, tcpAddress, type Values } from './options';

/** `--port P [--baud B]` or `--tcp HOST:PORT`, exactly one. Fails at once if it is not there. */
export function transportFrom(v: Values, baudRate?: number): Transport {
  const tcp = str(v, 'tcp');
  const path = str(v, 'port');
  if (tcp && path) throw new UsageError('give --port or --tcp, not both');
  if (tcp) {
    if (v.baud !== undefined)
      throw new UsageError("--baud is for a serial port: a gateway's baud is set on the gateway");
    return tcpTransport(tcpAddress(tcp));
  }
  if (!path)
    throw new UsageError(
      'give --port /dev/ttyUSB0 or --tcp HOST:PORT (lockctl ports lists serial ports)',
    );
  return serialTransport({ path, baudRate: baudRate ?? baud(v) });
}

/**
 * The cabinet lockctl works on: the kiosk's cabinet file (`--cabinet`), so a position
 * opens the door the kiosk would; else `--boards N` (0 to N-1, default wiring); else the
 * boards that answer a broadcast.
 */
export async function cabinetFrom(
  v: Values,
  board: LockBoard,
  fileIsOutput = false,
): Promise<Cabinet> {
  const file = fileIsOutput ? undefined : str(v, 'cabinet');
  if (file) {
    if (v.boards !== undefined || v['inverted-hook'])
      throw new UsageError(
        'the cabinet file gives the boards and the hook polarity: drop --boards and --inverted-hook',
      );
    return loadCabinetFile(file);
  }
  const count = boardCount(v);
  const boards = count ? [...Array(count).keys()] : await board.scan(400);
  if (boards.length === 0)
    throw new UsageError(
      'no board answered a broadcast: give --boards N or --cabinet FILE (or check power and wiring)',
    );
  return CabinetSchema.parse({ boards, hookBitMeansClosed: !v['inverted-hook'] });
}

const boardCount = (v: Values) =>
  v.boards === undefined ? undefined : int(v, 'boards', RANGES.boards);

/** Connects, works out the cabinet, runs `use`, and always closes the port. */
export async function withBoard<T>(
  v: Values,
  use: (board: LockBoard) => Promise<T>,
  options: {
    logger?: FrameLogger;
    needsCabinet?: boolean;
    cabinetIsOutput?: boolean;
    /** The cabinet to use when no file and no --boards say (a one-board check). */
    cabinet?: { boards: number[] };
  } = {},
): Promise<T> {
  // A cabinet file is read before the port is opened: its mistakes come first.
  const file = options.cabinetIsOutput ? undefined : str(v, 'cabinet');
  const known = file && options.needsCabinet !== false ? loadCabinetFile(file) : undefined;
  boardCount(v); // option mistakes before the port is touched
  const transport = transportFrom(v);
  const board = await LockBoard.connect({
    transport,
    cabinet: known ?? CabinetSchema.parse(options.cabinet ?? { boards: [0] }),
    // The bus timings are the shared ones (timings.ts), the kiosk's too.
    logger: options.logger,
  });
  try {
    if (options.needsCabinet !== false && !known)
      board.useCabinet(await cabinetFrom(v, board, options.cabinetIsOutput));
    return await use(board);
  } finally {
    await board.close();
  }
}
