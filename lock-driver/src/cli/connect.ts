import type { FrameLogger } from '../bus';
import { loadCabinetFile } from '../cabinet/file';
import { CabinetSchema, type Cabinet } from '../cabinet/schema';
import { LockBoard } from '../lockBoard';
import { serialTransport } from '../transport/serial';
import { tcpTransport } from '../transport/tcp';
import type { Transport } from '../transport/transport';
import type { ReconnectOptions } from '../transport/reconnecting';
import { LockDriverError } from '../errors';
import { RANGES, UsageError, baud, int, str, tcpAddress, type Values } from './options';

/**
 * What to say when no board answers at all: the rate tried, and `lockctl probe`. Over a
 * gateway the rate is the gateway's setting.
 */
export function silentBusHint(v: Values): string {
  const tcp = str(v, 'tcp');
  if (tcp)
    return `no board answered through the gateway ${tcp}: check the gateway's serial rate (the boards' factory rate is 19200 8N1; lockctl probe --tcp ${tcp} explains), then power and wiring`;
  const rate = baud(v);
  return `no board answered at ${rate} baud: if the boards are set to another rate, lockctl probe --port ${str(v, 'port')} finds it; else check power and wiring (A/B swapped?)`;
}

/** `--port P [--baud B]` or `--tcp HOST:PORT`, exactly one. Fails at once if it is not there. */
export function transportFrom(
  v: Values,
  baudRate?: number,
  reconnect: Pick<ReconnectOptions, 'waitForPort' | 'log'> = {},
): Transport {
  const tcp = str(v, 'tcp');
  const path = str(v, 'port');
  if (tcp && path) throw new UsageError('give --port or --tcp, not both');
  if (tcp) {
    if (v.baud !== undefined)
      throw new UsageError("--baud is for a serial port: a gateway's baud is set on the gateway");
    return tcpTransport({ ...tcpAddress(tcp), ...reconnect });
  }
  if (!path)
    throw new UsageError(
      'give --port /dev/ttyUSB0 or --tcp HOST:PORT (lockctl ports lists serial ports)',
    );
  return serialTransport({ path, baudRate: baudRate ?? baud(v), ...reconnect });
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
    throw new LockDriverError(
      'TIMEOUT',
      `${silentBusHint(v)} (or give --boards N or --cabinet FILE to read boards that did not answer the broadcast)`,
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
    /** Wait for the port or gateway rather than fail at once (monitor). */
    reconnect?: Pick<ReconnectOptions, 'waitForPort' | 'log'>;
  } = {},
): Promise<T> {
  // A cabinet file is read before the port is opened: its mistakes come first.
  const file = options.cabinetIsOutput ? undefined : str(v, 'cabinet');
  // As the README says: the cabinet file gives the boards and the polarity, never ignored.
  if (file && (v.boards !== undefined || v['inverted-hook']))
    throw new UsageError(
      'the cabinet file gives the boards and the hook polarity: drop --boards and --inverted-hook',
    );
  const known = file && options.needsCabinet !== false ? loadCabinetFile(file) : undefined;
  boardCount(v); // option mistakes before the port is touched
  const transport = transportFrom(v, undefined, options.reconnect);
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
