import { io, withIo, type CliIo } from './io';
import { parseArgs } from 'node:util';
import { LockDriverError, type LockDriverErrorCode } from '../errors';
import { commands, unknownCommand, type Output } from './commands';
import { map } from './map';
import { monitor } from './monitor';
import { OPTIONS, UsageError, checkOptionsFor, checkValues, type Values } from './options';
import { simulate } from './simulate';

const USAGE = `lockctl: field diagnostics for Kerong KR-CU16 door-controller boards

  lockctl ports                               serial ports on this machine (by-id paths)
  lockctl probe    --port P                   which baud rate the boards answer at
  lockctl scan     CONNECTION                 which boards (0-9) answer
  lockctl status   CONNECTION [CABINET]       every door: closed/open, item present
  lockctl open     CONNECTION [CABINET] --position N [--wait SECONDS]
  lockctl cycle    CONNECTION [CABINET] [--wait SECONDS]   open every door in turn,
                                              wait for it to be shut, list failures
  lockctl map      CONNECTION --cabinet FILE [--boards N] [--inverted-hook] [--columns 8]
                                              commissioning: open each lock, say which
                                              door opened (Enter: none), check every
                                              door reads shut, write the cabinet file
                                              with each board's settings; resumes
  lockctl unlock-time CONNECTION --board B [--set MS [--force]]
                                              pulse length, 0-60000 ms (under 200 ms
                                              only with --force; under 800 ms warned)
  lockctl unlock-delay CONNECTION --board B --set SECONDS   delayed unlock, 0-250 s
                                              (0 clears it; 0x39)
  lockctl baud     CONNECTION --board B --set RATE   the board's rate (0x40)
  lockctl firmware CONNECTION [--board B]     software and hardware version (F5 B6)
  lockctl monitor  CONNECTION [CABINET] [--interval MS]    every byte on the line;
                                              waits out an unplug and resumes
  lockctl simulate [--boards N] [--tcp PORT] [--auto-close MS] [--state-file F]
                   [--drop-after-unlock N] [--dead-board B] [--jam POS] [--noise]
                   [--inverted-hook] [--propped POS] [--item POS] [--unlock-delay S]
                   [--power-cut-after-pulse MS] [--byte-gap MS] [--board-baud RATE]
                   [--doors-wired N]          a simulated cabinet to practise on

CONNECTION: --port /dev/serial/by-id/… [--baud 19200] | --tcp HOST:PORT
CABINET:    --cabinet FILE (the kiosk's cabinet file) | --boards N [--inverted-hook]
            (neither: the boards that answer, default wiring)
Options: --json (one JSON document on stdout, failures too), --verbose (bytes behind errors)
Exit: 0 ok, 1 a door or board failed the check, 2 usage mistake, 3 cannot reach the bus`;

const EXIT_FOR: Record<LockDriverErrorCode, 1 | 2 | 3> = {
  TIMEOUT: 1,
  MISMATCH: 1,
  BAD_FRAME: 1,
  INVALID_ARGUMENT: 2,
  INVALID_CABINET: 2,
  DISCONNECTED: 3,
  CLOSED: 3,
  PORT_NOT_FOUND: 3,
  PORT_BUSY: 3,
  PERMISSION_DENIED: 3,
};

const all: Record<string, (v: Values) => Promise<Output>> = { ...commands, map, monitor, simulate };

function parse(argv: string[]): { command: string | undefined; values: Values } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: OPTIONS,
    });
    if (positionals.length > 1) throw new UsageError(`unexpected "${positionals[1]}"`);
    return { command: positionals[0], values };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // node:util's messages are one sentence already; drop its hint about "--".
    throw new UsageError((error as Error).message.split('. To specify')[0]!.replace(/\.$/, ''));
  }
}

function report(json: boolean, verbose: boolean, code: string, message: string, detail?: string) {
  if (json)
    io().stdout.write(
      JSON.stringify({ ok: false, error: { code, message, ...(detail ? { detail } : {}) } }) + '\n',
    );
  io().stderr.write(`lockctl: ${message}${verbose && detail ? ` [${detail}]` : ''}\n`);
}

/**
 * One lockctl run: its exit code, its output written to the run's streams (the
 * process's, unless `streams` are given).
 */
export function runLockctl(argv: string[], streams?: CliIo): Promise<number> {
  return streams ? withIo(streams, () => main(argv)) : main(argv);
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose');
  try {
    const { command, values } = parse(argv);
    if (values.help) {
      io().stdout.write(USAGE + '\n');
      return 0;
    }
    const run = command === undefined ? undefined : all[command];
    if (!run) return unknownCommand(command);
    checkOptionsFor(command!, values);
    checkValues(command!, values);
    const output = await run(values);
    if (json)
      io().stdout.write(JSON.stringify({ ok: output.ok, ...(output.json as object) }) + '\n');
    else if (output.text) io().stdout.write(output.text + '\n');
    return output.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      report(json, false, 'USAGE', error.message);
      if (!json) io().stderr.write('lockctl --help lists commands and options\n');
      return 2;
    }
    if (error instanceof LockDriverError) {
      report(json, verbose, error.code, error.message, error.detail);
      return EXIT_FOR[error.code];
    }
    const e = error instanceof Error ? error : new Error(String(error));
    report(json, verbose, 'FAILED', e.message, verbose ? e.stack : undefined);
    return 1;
  }
}
