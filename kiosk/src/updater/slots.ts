import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The A/B slots of a kiosk (docs/terminal-extensions.md, "Kiosk updates"): `base` is the
 * installed application (/opt/parcel-locker-kiosk/app), `a` and `b` releases unpacked in
 * the updates folder. `state.json` says which one runs, and which one is on trial: a
 * release installed and not yet seen healthy. The launcher (launcher.ts) starts the slot
 * on trial, and goes back to the active one by itself when the trial fails; the kiosk
 * core confirms the trial once healthy. Written durably (fsync, rename), as the token.
 */
export const SLOTS = ['base', 'a', 'b'] as const;
export type Slot = (typeof SLOTS)[number];

const StateSchema = z.object({
  active: z.enum(SLOTS).default('base'),
  versions: z.object({ a: z.string().optional(), b: z.string().optional() }).default({}),
  trial: z
    .object({
      slot: z.enum(['a', 'b']),
      version: z.string(),
      /** When it was installed (ms): the health window counts from here. */
      since: z.number(),
      crashes: z.number().int().default(0),
    })
    .nullable()
    .default(null),
  /** Versions this kiosk will not take again: rolled back, or refused. */
  failed: z
    .array(z.object({ version: z.string(), reason: z.string(), reported: z.boolean() }))
    .default([]),
});
export type SlotState = z.infer<typeof StateSchema>;

export class Slots {
  readonly stateFile: string;

  constructor(readonly dir: string) {
    mkdirSync(path.join(dir, 'slots'), { recursive: true, mode: 0o700 });
    this.stateFile = path.join(dir, 'state.json');
  }

  slotDir(slot: 'a' | 'b'): string {
    return path.join(this.dir, 'slots', slot);
  }

  read(): SlotState {
    let raw: unknown = {};
    try {
      raw = JSON.parse(readFileSync(this.stateFile, 'utf8'));
    } catch {
      // None yet (or unreadable): the installed application runs.
    }
    const parsed = StateSchema.safeParse(raw);
    return parsed.success ? parsed.data : StateSchema.parse({});
  }

  write(state: SlotState): void {
    const temporary = `${this.stateFile}.${process.pid}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(state, null, 2) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.stateFile);
    const folder = openSync(this.dir, 'r');
    try {
      fsyncSync(folder);
    } finally {
      closeSync(folder);
    }
  }

  update(change: (state: SlotState) => void): SlotState {
    const state = this.read();
    change(state);
    this.write(state);
    return state;
  }

  /** The slot a new release goes to: never the one running, never the one to go back to. */
  spare(state = this.read()): 'a' | 'b' {
    return state.active === 'a' ? 'b' : 'a';
  }

  /** The version a slot runs; the installed application's is its configuration's. */
  versionOf(state: SlotState, slot: Slot): string | undefined {
    return slot === 'base' ? undefined : state.versions[slot];
  }

  /** The trial ended badly: the active slot stays, the version is not taken again. */
  rollBack(reason: string): SlotState {
    return this.update((state) => {
      if (!state.trial) return;
      state.failed.push({ version: state.trial.version, reason, reported: false });
      state.trial = null;
    });
  }
}
