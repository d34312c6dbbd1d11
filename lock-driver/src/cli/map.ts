import { io } from './io';
import { createInterface } from 'node:readline';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { writeCabinetFile } from '../cabinet/file';
import type { BoardSettingsRecord, CabinetFile } from '../cabinet/schema';
import type { LockBoard } from '../lockBoard';
import { LOCKS_PER_BOARD } from '../protocol/frame';
import type { Output } from './commands';
import { withBoard } from './connect';
import { RANGES, UsageError, baud, int, str, type Values } from './options';

/** Questions on stderr, answers line by line from stdin (a person, or a test driving it). */
function prompter() {
  const rl = createInterface({ input: io().stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    ask: async (question: string): Promise<string> => {
      io().stderr.write(`${question} `);
      const next = await lines.next();
      if (next.done) throw new UsageError('map stopped: no more answers on the input');
      return String(next.value).trim();
    },
    close: () => rl.close(),
  };
}

/**
 * The answers given so far, kept beside the cabinet file as they are given: a map stopped
 * by Ctrl-C (or a dropped connection) resumes where it stopped. Keys "board/lock" (lock
 * 0-based); a door number, or null for "no door on this channel".
 */
interface Progress {
  boards: number[];
  hookBitMeansClosed: boolean;
  answers: Record<string, number | null>;
}

const progressFileOf = (cabinetFile: string) => `${cabinetFile}.progress.json`;

function loadProgress(file: string, fresh: Progress): Progress {
  let saved: Progress;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Progress;
  } catch {
    return fresh;
  }
  const same =
    JSON.stringify(saved.boards) === JSON.stringify(fresh.boards) &&
    saved.hookBitMeansClosed === fresh.hookBitMeansClosed &&
    typeof saved.answers === 'object';
  if (!same) {
    io().stderr.write(
      `${file} is from a map of other boards or another polarity: starting over (it is replaced)\n`,
    );
    return fresh;
  }
  const kept = Object.keys(saved.answers).length;
  if (kept > 0)
    io().stderr.write(
      `resuming: ${kept} answer${kept === 1 ? '' : 's'} kept from ${file} (delete it to start over)\n`,
    );
  return saved;
}

function saveProgress(file: string, progress: Progress): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(progress, null, 1) + '\n');
  renameSync(temporary, file);
}

const failed = (text: string, json: object = {}): Output => ({
  ok: false,
  json: { error: text, ...json },
  text,
});

/**
 * Commissioning: pulses every lock of every board in turn; the technician says which
 * door opened (the number on it), or Enter when none did; a channel that reads open
 * before its pulse has no door (Enter) or a door to shut first. The answers become the
 * cabinet file the kiosk and lockctl read, once the polarity checks out (every door the
 * technician shut reads shut), the delayed unlock is cleared and each board's firmware,
 * unlock time and baud are recorded in it.
 */
export async function map(v: Values): Promise<Output> {
  const file = str(v, 'cabinet');
  if (!file) throw new UsageError('map writes the cabinet file: give --cabinet FILE');
  const perColumn = int(v, 'columns', [1, 40], 8);
  const progressFile = progressFileOf(file);
  return withBoard(
    v,
    async (board) => {
      const prompt = prompter();
      try {
        const boards = board.cabinet.boards;
        const hookBitMeansClosed = board.cabinet.hookBitMeansClosed;
        const polarity = await checkPolarityBefore(board);
        if (polarity) return failed(polarity);
        // A delayed unlock would open each door seconds after its pulse: mapping needs none.
        for (const b of boards) await board.settings.setUnlockDelay(b, 0);
        const progress = loadProgress(progressFile, { boards, hookBitMeansClosed, answers: {} });
        await commission(board, prompt.ask, progress, () => saveProgress(progressFile, progress));
        const doors = namedDoors(progress);
        if (doors.size === 0) throw new UsageError('no door was named: nothing written');
        await prompt.ask('shut every door, then press Enter to check that each reads shut:');
        const shut = await checkShut(board, doors);
        if (shut) return failed(shut);
        const settings = await recordSettings(board, v);
        const written = write(board, doors, file, perColumn, settings);
        rmSync(progressFile, { force: true });
        return written;
      } finally {
        prompt.close();
      }
    },
    { cabinetIsOutput: true },
  );
}

/** Before any pulse: a board whose every lock reads open is suspect of inverted polarity. */
async function checkPolarityBefore(board: LockBoard): Promise<string | undefined> {
  const reading = await board.readDoors();
  const silent = reading.boards.filter((b) => !b.reachable).map((b) => b.board);
  if (silent.length)
    throw new UsageError(
      `board${silent.length > 1 ? 's' : ''} ${silent.join(', ')} did not answer: check power and wiring, or map only the boards that are there (--boards)`,
    );
  if (reading.suspectPolarity.length === 0) return undefined;
  const which = reading.suspectPolarity.join(', ');
  return `every lock of board ${which} reads open before anything was pulsed: either all its doors stand open, or the hook polarity is the other way (normally-closed switches). Shut the doors; if they still read open, run map again ${board.cabinet.hookBitMeansClosed ? 'with' : 'without'} --inverted-hook. Nothing was pulsed or written.`;
}

async function commission(
  board: LockBoard,
  ask: (q: string) => Promise<string>,
  progress: Progress,
  save: () => void,
): Promise<void> {
  io().stderr.write(
    `shut every door; lockctl opens the locks of boards ${progress.boards.join(', ')} one by one\n`,
  );
  const taken = (number: number) =>
    Object.entries(progress.answers).find(([, n]) => n === number)?.[0];
  for (const b of progress.boards)
    for (let lock = 0; lock < LOCKS_PER_BOARD; lock++) {
      const key = `${b}/${lock}`;
      if (key in progress.answers) continue;
      const here = `board ${b} lock ${lock + 1}`;
      const position = b * LOCKS_PER_BOARD + lock + 1; // its default position, to pulse it
      let opened = await board.open(position);
      let noDoor = false;
      while (opened.outcome === 'already_open') {
        const answer = await ask(
          `${here} reads open before its pulse. Enter: no door on this channel; or shut its door and type r to try again:`,
        );
        if (answer === '') {
          noDoor = true;
          break;
        }
        if (answer.toLowerCase() === 'r') opened = await board.open(position);
        else io().stderr.write(`"${answer}": press Enter (no door) or type r (shut, try again)\n`);
      }
      if (noDoor) {
        progress.answers[key] = null;
        save();
        continue;
      }
      const seen =
        opened.outcome === 'opened'
          ? 'a door opened'
          : opened.outcome === 'did_not_open'
            ? 'no door seen opening'
            : 'the board did not answer';
      for (;;) {
        const answer = await ask(
          `${here} pulsed (${seen}). Number on the door that opened (Enter: none):`,
        );
        if (answer === '') {
          progress.answers[key] = null;
          break;
        }
        const number = Number(answer);
        if (
          !Number.isInteger(number) ||
          number < RANGES.position[0] ||
          number > RANGES.position[1]
        ) {
          io().stderr.write(`"${answer}" is not a door number (1-${RANGES.position[1]})\n`);
          continue;
        }
        const other = taken(number);
        if (other) {
          const [ob, ol] = other.split('/').map(Number);
          io().stderr.write(
            `door ${number} is already board ${ob} lock ${ol! + 1}; which number is this one?\n`,
          );
          continue;
        }
        progress.answers[key] = number;
        break;
      }
      save();
    }
}

function namedDoors(progress: Progress): Map<number, { board: number; lock: number }> {
  const doors = new Map<number, { board: number; lock: number }>();
  for (const [key, number] of Object.entries(progress.answers)) {
    if (number === null) continue;
    const [board, lock] = key.split('/').map(Number);
    doors.set(number, { board: board!, lock: lock! });
  }
  return doors;
}

/** Every door the technician named and shut must read shut: else the polarity (or a switch) is wrong. */
async function checkShut(
  board: LockBoard,
  doors: Map<number, { board: number; lock: number }>,
): Promise<string | undefined> {
  const reading = await board.readDoors();
  const byLock = new Map(reading.doors.map((d) => [`${d.board}/${d.lock}`, d]));
  const notShut = [...doors]
    .filter(([, a]) => {
      const d = byLock.get(`${a.board}/${a.lock}`);
      return !d?.known || !d.closed;
    })
    .map(([n]) => n)
    .sort((a, b) => a - b);
  if (notShut.length === 0) return undefined;
  const all = notShut.length === doors.size;
  return all
    ? `none of the ${doors.size} doors reads shut: shut them and run map again; if they are shut, the hook polarity is the other way (normally-closed switches): run map again ${board.cabinet.hookBitMeansClosed ? 'with' : 'without'} --inverted-hook. Your answers are kept. Nothing written.`
    : `door${notShut.length > 1 ? 's' : ''} ${notShut.join(', ')} do${notShut.length > 1 ? '' : 'es'} not read shut: shut ${notShut.length > 1 ? 'them' : 'it'} (or check the hook switch) and run map again (your answers are kept). Nothing written.`;
}

/** Clears the delayed unlock once more and reads what the kiosk will compare at boot. */
async function recordSettings(
  board: LockBoard,
  v: Values,
): Promise<Record<string, BoardSettingsRecord>> {
  const settings: Record<string, BoardSettingsRecord> = {};
  const overTcp = str(v, 'tcp') !== undefined;
  for (const b of board.cabinet.boards) {
    await board.settings.setUnlockDelay(b, 0);
    const firmware = await board.settings.firmware(b);
    settings[String(b)] = {
      software: firmware.software,
      hardware: firmware.hardware,
      unlockTimeMs: await board.settings.unlockTime(b),
      unlockDelayS: 0,
      ...(overTcp ? {} : { baud: baud(v) }),
    };
  }
  return settings;
}

function write(
  board: LockBoard,
  doors: Map<number, { board: number; lock: number }>,
  file: string,
  perColumn: number,
  boardSettings: Record<string, BoardSettingsRecord>,
): Output {
  const boards = board.cabinet.boards;
  const isDefault = (p: number) => boards.includes(Math.floor((p - 1) / LOCKS_PER_BOARD));
  const positionOverrides: NonNullable<CabinetFile['positionOverrides']> = {};
  // Every default position of these boards: the door found at its lock, elsewhere, or none.
  for (const b of boards)
    for (let lock = 0; lock < LOCKS_PER_BOARD; lock++) {
      const position = b * LOCKS_PER_BOARD + lock + 1;
      const found = doors.get(position);
      if (!found) positionOverrides[position] = null;
      else if (found.board !== b || found.lock !== lock) positionOverrides[position] = found;
    }
  for (const [position, address] of doors)
    if (!isDefault(position)) positionOverrides[position] = address;
  const positions = [...doors.keys()].sort((a, b) => a - b);
  const columns = Array.from({ length: Math.ceil(positions.length / perColumn) }, (_, i) =>
    positions.slice(i * perColumn, (i + 1) * perColumn),
  );
  writeCabinetFile(file, {
    boards,
    hookBitMeansClosed: board.cabinet.hookBitMeansClosed,
    positionOverrides,
    layout: { columns },
    boardSettings,
    commissionedAt: new Date().toISOString(),
  });
  const summary = Object.entries(boardSettings)
    .map(
      ([b, s]) =>
        `board ${b}: software ${s.software}, hardware ${s.hardware}, unlock ${s.unlockTimeMs} ms${s.baud ? `, ${s.baud} baud` : ''}, no delayed unlock`,
    )
    .join('\n');
  return {
    ok: true,
    json: { file, doors: Object.fromEntries(doors), boardSettings },
    text: `every door reads shut; wrote ${file}: ${positions.length} doors on boards ${boards.join(', ')} (edit "layout" if the columns stand otherwise)\n${summary}`,
  };
}
