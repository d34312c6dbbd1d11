import { io } from './io';
import { probeBaudRates } from '../probe';
import { describeRange } from '../mapping';
import { cycleLine, closeSentence, doorLine, openSentence } from './sentences';
import { silentBusHint, transportFrom, withBoard } from './connect';
import { listPorts } from './ports';
import { RANGES, UsageError, baud, int, str, type Values } from './options';
import type { BaudRate } from '../protocol/frame';

/** Under this a pulse releases no lock: refused unless --force. */
export const MIN_UNLOCK_TIME_MS = 200;
/** The vendor recommends more than this for solenoid locks: a warning under it. */
export const SOLENOID_UNLOCK_TIME_MS = 800;

/** What a command answers: `ok` false is a failed check (exit 1), said in `text`. */
export interface Output {
  ok: boolean;
  json: unknown;
  text: string;
}

const say = (v: Values, line: string) => {
  if (!v.json) io().stdout.write(line + '\n');
};

function allBoards(v: Values, board: { cabinet: { boards: number[] } }) {
  return v.board === undefined ? board.cabinet.boards : [int(v, 'board', RANGES.board)];
}

export const commands: Record<string, (v: Values) => Promise<Output>> = {
  ports: async () => {
    const ports = await listPorts();
    const text = ports.length
      ? ports
          .map(
            (p) =>
              `${p.path}${p.path !== p.device ? `  (now ${p.device}; give the by-id path to lockctl and the kiosk: it stays the same when the adapter is re-plugged)` : ''}${p.manufacturer ? `  ${p.manufacturer}` : ''}`,
          )
          .join('\n')
      : 'no serial ports found';
    return { ok: true, json: { ports }, text };
  },

  probe: async (v) => {
    if (str(v, 'tcp')) {
      // Over TCP the gateway talks to the bus at its own configured rate: trying four rates
      // here would only reach the gateway four times.
      const boards = await withBoard(v, (b) => b.scan(400), { needsCabinet: false });
      const text = `over TCP the line's baud rate is a setting of the gateway (its own web page or tool), not of lockctl; through it ${boards.length ? `boards ${boards.join(', ')} answer` : 'no board answers: check the gateway’s serial settings (19200 8N1 is the boards’ factory rate)'}`;
      return { ok: boards.length > 0, json: { gateway: true, boards }, text };
    }
    const results = await probeBaudRates((rate) => transportFrom(v, rate));
    const answering = results.filter((r) => r.boards.length > 0);
    const text = answering.length
      ? answering.map((r) => `${r.baud} baud: boards ${r.boards.join(', ')}`).join('\n')
      : 'no board answered at 9600, 19200, 57600 or 115200 baud: check wiring (A/B swapped?) and power';
    return { ok: answering.length > 0, json: { results }, text };
  },

  scan: (v) =>
    withBoard(
      v,
      async (board) => {
        const boards = await board.scan(400);
        return {
          ok: boards.length > 0,
          json: { boards },
          text: boards.length ? `boards answering: ${boards.join(', ')}` : silentBusHint(v),
        };
      },
      { needsCabinet: false },
    ),

  status: (v) =>
    withBoard(v, async (board) => {
      const reading = await board.readDoors();
      const silent = reading.boards.filter((b) => !b.reachable).map((b) => b.board);
      const lines = reading.doors.map(doorLine);
      if (silent.length === reading.boards.length) lines.push(silentBusHint(v));
      else if (silent.length)
        lines.push(
          `board${silent.length > 1 ? 's' : ''} ${silent.join(', ')} did not answer: ${silent.length > 1 ? 'their' : 'its'} doors are unknown (check power, address switches and wiring)`,
        );
      const suspect = reading.suspectPolarity;
      if (suspect.length)
        lines.push(
          `every door of board${suspect.length > 1 ? 's' : ''} ${suspect.join(', ')} reads open: if they are shut, the hook polarity is the other way (normally-closed switches): ${board.cabinet.hookBitMeansClosed ? 'read them with --inverted-hook (hookBitMeansClosed: false in the cabinet file)' : 'read them without --inverted-hook (hookBitMeansClosed: true in the cabinet file)'}`,
        );
      if (v.boards === undefined && v.cabinet === undefined)
        lines.unshift(
          `boards ${board.cabinet.boards.join(', ')} answered a broadcast (give --boards N or --cabinet FILE to check for missing ones)`,
        );
      return {
        ok: silent.length === 0 && suspect.length === 0,
        json: reading,
        text: lines.join('\n'),
      };
    }),

  open: (v) =>
    withBoard(v, async (board) => {
      const position = int(v, 'position', RANGES.position);
      const waitS = v.wait === undefined ? 0 : int(v, 'wait', RANGES.waitSeconds);
      const { board: boardNo } = board.map.toAddress(position);
      const opened = await board.open(position);
      const text = [openSentence(opened, boardNo)];
      // A silent board, no pulse: if no board answers at all, it is the rate or the line.
      if (
        opened.outcome === 'unknown' &&
        opened.pulses === 0 &&
        (await board.scan(400)).length === 0
      )
        text.push(silentBusHint(v));
      let closed;
      if (opened.outcome === 'opened' && waitS > 0) {
        say(v, `${text[0]}; waiting up to ${waitS} s for it to be shut`);
        text.shift();
        closed = await board.watchClosed(position, {
          leftOpenAfterMs: waitS * 1000,
          giveUpAfterMs: waitS * 1000,
          pollIntervalMs: 100,
        });
        text.push(closeSentence(position, closed, waitS));
      }
      const ok = opened.outcome === 'opened' && closed?.outcome !== 'left_open';
      const json = {
        position,
        outcome: opened.outcome,
        pulses: opened.pulses,
        seenOpenAfterMs:
          opened.seenOpenAfterMs === null ? null : Math.round(opened.seenOpenAfterMs),
        elapsedMs: Math.round(opened.elapsedMs),
        ...(closed ? { afterOpen: closed.outcome } : {}),
      };
      return { ok, json, text: text.join('\n') };
    }),

  cycle: (v) =>
    withBoard(v, async (board) => {
      const waitS = int(v, 'wait', RANGES.waitSeconds, 30);
      say(
        v,
        `cycling doors ${describeRange(board.map.positions)}: shut each door after it opens (${waitS} s each)`,
      );
      const results = await board.cycle(waitS * 1000, (r) => say(v, cycleLine(r)));
      const failed = results.filter((r) => !r.ok);
      const text = failed.length
        ? `FAILED: ${failed.length} of ${results.length} doors (${failed.map((f) => f.position).join(', ')})`
        : `all ${results.length} doors opened and were shut again`;
      return {
        ok: failed.length === 0,
        json: { results, failed: failed.map((f) => f.position) },
        text,
      };
    }),

  'unlock-time': (v) => {
    const b = int(v, 'board', RANGES.board);
    const set = v.set === undefined ? undefined : int(v, 'set', RANGES.unlockMs);
    // A pulse of a few tens of ms releases nothing: a door set so would never open again.
    if (set !== undefined && set < MIN_UNLOCK_TIME_MS && !v.force)
      throw new UsageError(
        `an unlock pulse of ${set} ms releases no lock (the vendor recommends over ${SOLENOID_UNLOCK_TIME_MS} ms for solenoid locks): nothing set; give --force to set it anyway`,
      );
    return withBoard(
      v,
      async (board) => {
        const ms =
          set === undefined
            ? await board.settings.unlockTime(b)
            : await board.settings.setUnlockTime(b, set);
        const warning =
          ms < SOLENOID_UNLOCK_TIME_MS
            ? `under ${SOLENOID_UNLOCK_TIME_MS} ms: enough for motor locks, too short for solenoid locks (the vendor recommends over ${SOLENOID_UNLOCK_TIME_MS} ms)`
            : undefined;
        return {
          ok: true,
          json: { board: b, unlockTimeMs: ms, ...(warning ? { warning } : {}) },
          text: `board ${b}: unlock pulse ${ms} ms${set === undefined ? '' : ' (set and confirmed by the board)'}${warning ? `\nwarning: ${warning}` : ''}`,
        };
      },
      { needsCabinet: false },
    );
  },

  'unlock-delay': (v) => {
    const b = int(v, 'board', RANGES.board);
    if (v.set === undefined)
      throw new UsageError(
        'give --set SECONDS (0 clears it): the board has no query for its delayed unlock, so setting it is the only way to know it',
      );
    const seconds = int(v, 'set', RANGES.unlockDelayS);
    return withBoard(
      v,
      async (board) => {
        await board.settings.setUnlockDelay(b, seconds);
        return {
          ok: true,
          json: { board: b, unlockDelayS: seconds },
          text:
            seconds === 0
              ? `board ${b}: delayed unlock cleared (its doors open on the pulse)`
              : `board ${b}: delayed unlock set to ${seconds} s: its doors open ${seconds} s after each unlock, long after the kiosk gave up on them (--set 0 clears it)`,
        };
      },
      { needsCabinet: false },
    );
  },

  baud: async (v) => {
    const b = int(v, 'board', RANGES.board);
    if (v.set === undefined)
      throw new UsageError(
        'give --set RATE (9600, 19200, 57600 or 115200); lockctl probe finds the rate boards answer at now',
      );
    const rate = baud(v, 19200, 'set') as BaudRate;
    const overTcp = str(v, 'tcp') !== undefined;
    await withBoard(v, (board) => board.settings.setBaud(b, rate), { needsCabinet: false });
    if (overTcp)
      return {
        ok: true,
        json: { board: b, baud: rate, verified: false },
        text: `board ${b} confirmed ${rate} baud and switched to it: set the gateway's serial rate to ${rate} (on the gateway itself; lockctl cannot), then lockctl scan`,
      };
    // The flash write is over: talk to it at the new rate.
    const answers = await withBoard(
      { ...v, baud: String(rate) },
      async (board) => (await board.readDoors()).boards[0]!.reachable,
      { needsCabinet: false, cabinet: { boards: [b] } },
    );
    return {
      ok: answers,
      json: { board: b, baud: rate, verified: answers },
      text: answers
        ? `board ${b} now answers at ${rate} baud: give --baud ${rate} from now on, set the kiosk's lock baudRate to ${rate}, and set every board of the bus to it`
        : `board ${b} confirmed ${rate} baud but does not answer at it: run lockctl probe`,
    };
  },

  firmware: (v) =>
    withBoard(v, async (board) => {
      const versions = [];
      for (const b of allBoards(v, board)) versions.push(await board.settings.firmware(b));
      return {
        ok: true,
        json: { boards: versions },
        text: versions
          .map((f) => `board ${f.board}: software ${f.software}, hardware ${f.hardware}`)
          .join('\n'),
      };
    }),
};

export function unknownCommand(name: string | undefined): never {
  throw new UsageError(
    name
      ? `unknown command "${name}" (lockctl --help lists them)`
      : 'give a command (lockctl --help lists them)',
  );
}
