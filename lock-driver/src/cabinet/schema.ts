import { z } from 'zod';
import { BAUD_RATES, LOCKS_PER_BOARD, MAX_BOARD } from '../protocol/frame';

/**
 * The cabinet file: one description of a cabinet's wiring that the kiosk and `lockctl`
 * both read, so a position opens the same door whoever asks. Written by `lockctl map`.
 *
 * Doors: every lock of every present board, at its default position
 * (board * 16 + lock + 1), except where `positionOverrides` says otherwise: a position
 * mapped to another lock, or to null (no door there). Two positions on one lock are a
 * mistake, reported with the field.
 */

const LockAddressSchema = z.strictObject({
  /** Board number set by DIP switch. */
  board: z.number().int().min(0).max(MAX_BOARD),
  /** 0-based lock index on the board (lock 1 is index 0). */
  lock: z
    .number()
    .int()
    .min(0)
    .max(LOCKS_PER_BOARD - 1),
});

const PositionKey = z.string().regex(/^[1-9][0-9]{0,3}$/, 'a door position: a whole number from 1');
const BoardKey = z.string().regex(/^[0-9]$/, 'a board number, 0 to 9');

/**
 * A board's settings as commissioning (`lockctl map`) found and left them: what the kiosk
 * compares at boot to notice a board swapped or reset to factory. Every field optional,
 * so a file written before these existed, or by hand, still loads.
 */
const BoardSettingsSchema = z.strictObject({
  /** From the vendor's version query (F5 B6). */
  software: z.number().int().min(0).max(255).optional(),
  hardware: z.number().int().min(0).max(255).optional(),
  /** Unlock pulse (0x37), ms. */
  unlockTimeMs: z.number().int().min(0).max(60_000).optional(),
  /** Delayed unlock (0x39) left set, s; commissioning clears it (0). */
  unlockDelayS: z.number().int().min(0).max(250).optional(),
  /** The serial rate the board answered at (absent over a TCP gateway, whose rate is its own). */
  baud: z
    .number()
    .int()
    .refine((b) => (BAUD_RATES as number[]).includes(b), 'one of 9600, 19200, 57600, 115200')
    .optional(),
});

export type BoardSettingsRecord = z.infer<typeof BoardSettingsSchema>;

const CabinetFileSchema = z.strictObject({
  /** Board numbers on the bus (0-9), each once. */
  boards: z.array(z.number().int().min(0).max(MAX_BOARD)).min(1),
  /** Vendor wiring (hook bit 1 = door closed) unless the cabinet uses normally-closed switches. */
  hookBitMeansClosed: z.boolean().default(true),
  /** Positions wired elsewhere than the default rule; null: no door at that position. */
  positionOverrides: z.record(PositionKey, LockAddressSchema.nullable()).default({}),
  /**
   * Doors as they stand, for the screen's cabinet map: each column lists positions top
   * to bottom, columns left to right. Every door exactly once. Default: columns of 8.
   */
  layout: z
    .strictObject({
      columns: z.array(z.array(z.number().int().positive()).min(1)).min(1),
    })
    .optional(),
  /** Each board's settings as commissioned, by board number; see BoardSettingsSchema. */
  boardSettings: z.record(BoardKey, BoardSettingsSchema).optional(),
  /** When `lockctl map` wrote the file (ISO 8601). */
  commissionedAt: z.string().optional(),
  /**
   * Each door's handle height above the floor, mm, by position (measured at installation).
   * The service reads it (`pnpm admin door set-height --cabinet FILE`) to offer doors
   * within reach, 380-1,220 mm (EN 301 549). Optional; doors not listed are unknown.
   */
  handleHeightsMm: z.record(PositionKey, z.number().int().min(0).max(3000)).optional(),
});

export interface LockAddress {
  board: number;
  /** 0-based lock index on the board (lock 1 is index 0). */
  lock: number;
}

/** Position -> lock, of every door of a cabinet described by `boards` and `overrides`. */
export function doorMap(
  boards: readonly number[],
  overrides: Record<string, LockAddress | null>,
): Map<number, LockAddress> {
  const doors = new Map<number, LockAddress>();
  for (const board of boards)
    for (let lock = 0; lock < LOCKS_PER_BOARD; lock++)
      doors.set(board * LOCKS_PER_BOARD + lock + 1, { board, lock });
  for (const [key, address] of Object.entries(overrides)) {
    if (address) doors.set(Number(key), address);
    else doors.delete(Number(key));
  }
  return new Map([...doors].sort(([a], [b]) => a - b));
}

/** Columns of 8 doors in position order: the screen's map when the file gives none. */
export function defaultLayout(positions: readonly number[]): { columns: number[][] } {
  const columns: number[][] = [];
  for (let i = 0; i < positions.length; i += 8) columns.push(positions.slice(i, i + 8));
  return { columns };
}

export const CabinetSchema = CabinetFileSchema.superRefine((file, ctx) => {
  const seenBoards = new Set<number>();
  file.boards.forEach((board, i) => {
    if (seenBoards.has(board))
      ctx.addIssue({ code: 'custom', path: ['boards', i], message: `board ${board} listed twice` });
    seenBoards.add(board);
  });
  for (const [key, address] of Object.entries(file.positionOverrides)) {
    if (address && !seenBoards.has(address.board))
      ctx.addIssue({
        code: 'custom',
        path: ['positionOverrides', key, 'board'],
        message: `board ${address.board} is not in "boards"`,
      });
  }
  for (const key of Object.keys(file.boardSettings ?? {}))
    if (!seenBoards.has(Number(key)))
      ctx.addIssue({
        code: 'custom',
        path: ['boardSettings', key],
        message: `board ${key} is not in "boards"`,
      });
  // Two positions on one lock: each would open the other's door.
  const owner = new Map<string, number>();
  for (const [position, { board, lock }] of doorMap(file.boards, file.positionOverrides)) {
    const id = `${board}/${lock}`;
    const other = owner.get(id);
    if (other !== undefined) {
      const key = String(position) in file.positionOverrides ? position : other;
      ctx.addIssue({
        code: 'custom',
        path: ['positionOverrides', String(key)],
        message: `positions ${other} and ${position} are both on board ${board}, lock ${lock}: map one of them elsewhere (or to null)`,
      });
    } else owner.set(id, position);
  }
  const doors = doorMap(file.boards, file.positionOverrides);
  for (const key of Object.keys(file.handleHeightsMm ?? {}))
    if (!doors.has(Number(key)))
      ctx.addIssue({
        code: 'custom',
        path: ['handleHeightsMm', key],
        message: `position ${key} is not a door of this cabinet`,
      });
  if (!file.layout) return;
  const positions = doors;
  const placed = new Set<number>();
  file.layout.columns.forEach((column, c) =>
    column.forEach((position, r) => {
      const path = ['layout', 'columns', c, r];
      if (!positions.has(position))
        ctx.addIssue({
          code: 'custom',
          path,
          message: `position ${position} is not a door of this cabinet`,
        });
      else if (placed.has(position))
        ctx.addIssue({ code: 'custom', path, message: `position ${position} placed twice` });
      placed.add(position);
    }),
  );
  const missing = [...positions.keys()].filter((p) => !placed.has(p));
  if (missing.length)
    ctx.addIssue({
      code: 'custom',
      path: ['layout', 'columns'],
      message: `doors missing from the layout: ${missing.join(', ')}`,
    });
}).transform((file) => ({
  ...file,
  boards: [...file.boards].sort((a, b) => a - b),
  layout: file.layout ?? defaultLayout([...doorMap(file.boards, file.positionOverrides).keys()]),
}));

/** A checked cabinet description, layout filled in. */
export type Cabinet = z.output<typeof CabinetSchema>;
/** What a cabinet file may hold (defaults not yet applied). */
export type CabinetFile = z.input<typeof CabinetSchema>;

/** Boards 0 to count - 1, default mapping, columns of 8: a cabinet without a file. */
export function defaultCabinet(boardCount: number, hookBitMeansClosed = true): Cabinet {
  return CabinetSchema.parse({
    boards: Array.from({ length: boardCount }, (_, i) => i),
    hookBitMeansClosed,
  });
}
