import { io } from './io';
import { createInterface } from 'node:readline';
import { writeCabinetFile } from '../cabinet/file';
import type { CabinetFile, LockAddress } from '../cabinet/schema';
import type { LockBoard } from '../lockBoard';
import { LOCKS_PER_BOARD } from '../protocol/frame';
import type { Output } from './commands';
import { withBoard } from './connect';
import { RANGES, UsageError, int, str, type Values } from './options';

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
 * Commissioning: pulses every lock of every board in turn; the technician says which
 * door opened (the number on it), or Enter when none did. The answers become the cabinet
 * file the kiosk and lockctl read.
 */
export async function map(v: Values): Promise<Output> {
  const file = str(v, 'cabinet');
  if (!file) throw new UsageError('map writes the cabinet file: give --cabinet FILE');
  const perColumn = int(v, 'columns', [1, 40], 8);
  return withBoard(
    v,
    async (board) => {
      const prompt = prompter();
      try {
        const doors = await commission(board, prompt.ask);
        return finish(board, doors, file, perColumn);
      } finally {
        prompt.close();
      }
    },
    { cabinetIsOutput: true },
  );
}

async function commission(
  board: LockBoard,
  ask: (q: string) => Promise<string>,
): Promise<Map<number, LockAddress>> {
  const doors = new Map<number, LockAddress>();
  io().stderr.write(
    `shut every door; lockctl opens the locks of boards ${board.cabinet.boards.join(', ')} one by one\n`,
  );
  for (const b of board.cabinet.boards)
    for (let lock = 0; lock < LOCKS_PER_BOARD; lock++) {
      const here = `board ${b} lock ${lock + 1}`;
      const position = b * LOCKS_PER_BOARD + lock + 1; // its default position, to pulse it
      let opened = await board.open(position);
      while (opened.outcome === 'already_open') {
        await ask(`${here}: a door on it reads open already; shut it and press Enter`);
        opened = await board.open(position);
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
        if (answer === '') break;
        const number = Number(answer);
        if (
          !Number.isInteger(number) ||
          number < RANGES.position[0] ||
          number > RANGES.position[1]
        ) {
          io().stderr.write(`"${answer}" is not a door number (1-${RANGES.position[1]})\n`);
          continue;
        }
        const taken = doors.get(number);
        if (taken) {
          io().stderr.write(
            `door ${number} is already board ${taken.board} lock ${taken.lock + 1}; which number is this one?\n`,
          );
          continue;
        }
        doors.set(number, { board: b, lock });
        break;
      }
    }
  return doors;
}

function finish(
  board: LockBoard,
  doors: Map<number, LockAddress>,
  file: string,
  perColumn: number,
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
  if (positions.length === 0) throw new UsageError('no door was named: nothing written');
  const columns = Array.from({ length: Math.ceil(positions.length / perColumn) }, (_, i) =>
    positions.slice(i * perColumn, (i + 1) * perColumn),
  );
  writeCabinetFile(file, {
    boards,
    hookBitMeansClosed: board.cabinet.hookBitMeansClosed,
    positionOverrides,
    layout: { columns },
  });
  return {
    ok: true,
    json: { file, doors: Object.fromEntries(doors) },
    text: `wrote ${file}: ${positions.length} doors on boards ${boards.join(', ')} (edit "layout" if the columns stand otherwise)`,
  };
}
