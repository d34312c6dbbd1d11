#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { LockBoard } from '../lockBoard';
import { LockDriverError } from '../errors';
import { defaultCabinet } from '../cabinet/schema';
import { SimulatedCabinet } from '../simulator/cabinet';
import { servePty, serveTcp } from '../simulator/serve';
import { serialTransport } from '../transport/serial';
import { tcpTransport } from '../transport/tcp';
import { listPorts } from './ports';
import { probeBaudRates } from '../probe';

const USAGE = `lockctl: field diagnostics for Kerong KR-CU16 door-controller boards

  lockctl ports                                  serial ports on this machine
  lockctl probe   --port P                       which baud rate the boards answer at
  lockctl scan    CONNECTION                     which boards (0-9) answer
  lockctl status  CONNECTION [--boards N]        every door: closed/open, item present
  lockctl open    CONNECTION --position N [--wait SECONDS]
  lockctl cycle   CONNECTION [--boards N] [--wait SECONDS]   open every door in turn,
                                                 wait for it to be closed, report failures
  lockctl unlock-time CONNECTION --board B [--set MS]
  lockctl monitor CONNECTION [--boards N] [--interval MS]   print every frame in hex
  lockctl simulate --boards N [--tcp PORT] [--baud B] [--auto-close MS]
                                                 a simulated cabinet (doors shut MS after opening)

CONNECTION: --port /dev/ttyUSB0 [--baud 19200] | --tcp HOST:PORT
Options: --json (one JSON document on stdout), --inverted-hook (normally-closed wiring)`;

type Values = Record<string, string | boolean | undefined>;

const str = (v: Values, name: string) => (typeof v[name] === 'string' ? v[name] : undefined);

function int(v: Values, name: string, fallback?: number): number {
  const raw = str(v, name);
  if (raw === undefined) {
    if (fallback === undefined)
      throw new LockDriverError('INVALID_ARGUMENT', `--${name} is required`);
    return fallback;
  }
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new LockDriverError('INVALID_ARGUMENT', `--${name} must be a whole number`);
  return n;
}

function transportFrom(v: Values, baudRate?: number) {
  const tcp = str(v, 'tcp');
  if (tcp) {
    const [host, port] = tcp.includes(':') ? tcp.split(':') : ['127.0.0.1', tcp];
    return tcpTransport({ host: host!, port: Number(port) });
  }
  const path = str(v, 'port');
  if (!path)
    throw new LockDriverError(
      'INVALID_ARGUMENT',
      'give --port /dev/ttyUSB0 or --tcp HOST:PORT (lockctl ports lists serial ports)',
    );
  return serialTransport({ path, baudRate: baudRate ?? int(v, 'baud', 19200) });
}

async function withBoard<T>(
  v: Values,
  use: (board: LockBoard) => Promise<T>,
  extra: Partial<Parameters<typeof LockBoard.connect>[0]> = {},
): Promise<T> {
  const board = await LockBoard.connect({
    transport: transportFrom(v),
    cabinet: defaultCabinet(int(v, 'boards', 1), !v['inverted-hook']),
    ...extra,
  });
  try {
    return await use(board);
  } finally {
    await board.close();
  }
}

type Output = { json: unknown; text: string };

const commands: Record<string, (v: Values) => Promise<Output>> = {
  ports: async () => {
    const ports = await listPorts();
    const text = ports.length
      ? ports.map((p) => `${p.path}${p.manufacturer ? `  ${p.manufacturer}` : ''}`).join('\n')
      : 'no serial ports found';
    return { json: { ports }, text };
  },
  probe: async (v) => {
    const results = await probeBaudRates((baud) => transportFrom(v, baud));
    const answering = results.filter((r) => r.boards.length > 0);
    const text = answering.length
      ? answering.map((r) => `${r.baud} baud: boards ${r.boards.join(', ')}`).join('\n')
      : 'no board answered at 9600, 19200, 57600 or 115200 baud: check wiring (A/B swapped?) and power';
    return { json: { results }, text };
  },
  scan: (v) =>
    withBoard(v, async (board) => {
      const boards = await board.scan(400);
      return {
        json: { boards },
        text: boards.length ? `boards answering: ${boards.join(', ')}` : 'no board answered',
      };
    }),
  status: (v) =>
    withBoard(v, async (board) => {
      const { doors } = await board.readDoors();
      const text = doors
        .map(
          (d) =>
            `door ${String(d.position).padStart(3)}  ${!d.known ? 'unknown (board silent)' : `${d.closed ? 'closed' : 'OPEN  '}  ${d.itemPresent ? 'item' : 'empty'}`}`,
        )
        .join('\n');
      return { json: { doors }, text };
    }),
  open: (v) =>
    withBoard(v, async (board) => {
      const position = int(v, 'position');
      const opened = await board.open(position);
      const wait = str(v, 'wait') ? int(v, 'wait') * 1000 : 0;
      const closed =
        opened.outcome === 'opened' && wait > 0
          ? await board.watchClosed(position, { leftOpenAfterMs: wait, giveUpAfterMs: wait })
          : undefined;
      const json = {
        position,
        outcome: opened.outcome,
        openedInMs: Math.round(opened.elapsedMs),
        ...(closed ? { afterOpen: closed.outcome } : {}),
      };
      const text = `door ${position}: ${opened.outcome === 'opened' ? `opened in ${json.openedInMs} ms` : 'DID NOT OPEN (jammed or no power to the lock)'}${closed ? `, then ${closed.outcome.replace(/_/g, ' ')}` : ''}`;
      return { json, text };
    }),
  cycle: (v) =>
    withBoard(v, async (board) => {
      const results = await board.cycle(int(v, 'wait', 30) * 1000, (r) => {
        if (!v.json)
          process.stderr.write(
            `door ${r.position}: ${r.opened}${r.closed ? `, ${r.closed}` : ''}\n`,
          );
      });
      const failed = results.filter((r) => !r.ok);
      const text = failed.length
        ? `FAILED: ${failed.map((f) => `door ${f.position} (${f.closed ?? f.opened})`).join(', ')}`
        : `all ${results.length} doors opened and closed`;
      return { json: { results, failed: failed.map((f) => f.position) }, text };
    }),
  'unlock-time': (v) =>
    withBoard(v, async (board) => {
      const b = int(v, 'board');
      const set = str(v, 'set');
      const ms =
        set === undefined
          ? await board.settings.unlockTime(b)
          : await board.settings.setUnlockTime(b, int(v, 'set'));
      return { json: { board: b, unlockTimeMs: ms }, text: `board ${b}: unlock pulse ${ms} ms` };
    }),
  monitor: async (v) => {
    const interval = int(v, 'interval', 1000);
    const logger = {
      frame: (direction: 'tx' | 'rx', _bytes: Buffer, hexText: string, at: Date) => {
        const line = v.json
          ? JSON.stringify({ at: at.toISOString(), direction, frame: hexText })
          : `${at.toISOString()}  ${direction === 'tx' ? '→' : '←'}  ${hexText}`;
        process.stdout.write(line + '\n');
      },
    };
    await withBoard(
      v,
      async (board) => {
        for (;;) {
          await board.readDoors().catch((e: Error) => process.stderr.write(`${e.message}\n`));
          await new Promise((r) => setTimeout(r, interval));
        }
      },
      { logger },
    );
    return { json: null, text: '' };
  },
  simulate: async (v) => {
    const autoClose = str(v, 'auto-close');
    const cabinet = new SimulatedCabinet({
      boards: int(v, 'boards', 1),
      hookBitMeansClosed: !v['inverted-hook'],
      ...(autoClose === undefined ? {} : { autoCloseMs: int(v, 'auto-close') }),
    });
    const wire = { baudRate: int(v, 'baud', 19200) };
    const where = str(v, 'tcp')
      ? `tcp://127.0.0.1:${(await serveTcp(cabinet, int(v, 'tcp'), wire)).port}`
      : (await servePty(cabinet, wire)).path;
    cabinet.on('unlock', (p: number) => process.stderr.write(`unlock pulse: door ${p}\n`));
    // Ctrl-C or a kill ends the process normally, so the pseudo-terminal's socat goes too.
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => process.exit(0));
    const json = { listening: where, boards: cabinet.options.boards };
    process.stdout.write(
      (v.json
        ? JSON.stringify(json)
        : `simulated cabinet of ${json.boards} board(s) listening on ${where} (Ctrl-C to stop)`) +
        '\n',
    );
    await new Promise(() => {});
    return { json, text: '' };
  },
};

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      baud: { type: 'string' },
      tcp: { type: 'string' },
      boards: { type: 'string' },
      position: { type: 'string' },
      wait: { type: 'string' },
      board: { type: 'string' },
      set: { type: 'string' },
      interval: { type: 'string' },
      'auto-close': { type: 'string' },
      json: { type: 'boolean' },
      'inverted-hook': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const command = commands[positionals[0] ?? ''];
  if (values.help || !command) {
    process.stderr.write(USAGE + '\n');
    return values.help ? 0 : 2;
  }
  try {
    const output = await command(values);
    if (output.text || values.json)
      process.stdout.write((values.json ? JSON.stringify(output.json) : output.text) + '\n');
    return 0;
  } catch (error) {
    const e =
      error instanceof LockDriverError
        ? error
        : new LockDriverError(
            'DISCONNECTED',
            error instanceof Error ? error.message : String(error),
          );
    if (values.json)
      process.stdout.write(JSON.stringify({ error: { code: e.code, message: e.message } }) + '\n');
    process.stderr.write(`lockctl: ${e.message}\n`);
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
