/**
 * `kiosk-launch CONFIG`: what systemd starts. It runs the kiosk core (the browser host)
 * from the slot `state.json` names, and watches a release on trial: if the new core has
 * not confirmed itself healthy within `updates.healthSeconds` of its install, or exits
 * three times before that, the launcher stops it, marks the version failed (the core
 * reports it on its next run) and starts the previous slot. It depends on nothing but
 * Node and this folder, so a broken release cannot break the way back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKioskConfig } from '../core/config';
import { Slots, type Slot } from './slots';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The installed application's host: the `base` slot. */
const BASE_ENTRY = path.resolve(HERE, '../hosts/browser.ts');
/** A release is the deployed kiosk package: its host at the same place inside. */
const ENTRY_IN_RELEASE = 'src/hosts/browser.ts';
/** Exits before it is healthy that end a trial. */
export const TRIAL_CRASHES = 3;

function entryOf(slots: Slots, slot: Slot): string {
  return slot === 'base' ? BASE_ENTRY : path.join(slots.slotDir(slot), ENTRY_IN_RELEASE);
}

export function launch(configFile: string): void {
  const config = loadKioskConfig(configFile, { unenrolled: 'allow' });
  const updates = config.updates;
  const slots = updates ? new Slots(updates.dir) : undefined;
  // TypeScript sources run through tsx; resolved here, so a release needs none of its own.
  const tsx = import.meta.resolve('tsx');
  let child: ChildProcess | undefined;
  let stopping = false;
  let watch: NodeJS.Timeout | undefined;

  const start = () => {
    const state = slots?.read();
    const slot: Slot = state?.trial?.slot ?? state?.active ?? 'base';
    const version = state && slots ? slots.versionOf(state, slot) : undefined;
    process.stdout.write(`kiosk-launch: starting slot ${slot}${version ? ` (${version})` : ''}\n`);
    child = spawn(process.execPath, ['--import', tsx, entryOf(slots!, slot), configFile], {
      stdio: 'inherit',
      cwd: slot === 'base' ? process.cwd() : slots!.slotDir(slot),
      env: {
        ...process.env,
        KIOSK_SLOT: slot,
        ...(version ? { KIOSK_APP_VERSION: version } : {}),
      },
    });
    const trial = state?.trial;
    if (slots && updates && trial) {
      // Measured from the install: restarts within the trial do not extend it.
      const left = trial.since + updates.healthSeconds * 1000 - Date.now();
      watch = setTimeout(
        () => {
          if (slots.read().trial?.version !== trial.version) return;
          process.stdout.write(`kiosk-launch: ${trial.version} not healthy in time\n`);
          slots.rollBack(`not healthy within ${updates.healthSeconds} s`);
          child?.kill('SIGKILL');
        },
        Math.max(0, left),
      );
    }
    child.on('exit', (code, signal) => {
      clearTimeout(watch);
      if (stopping) process.exit(0);
      const now = slots?.read();
      if (slots && now?.trial) {
        const crashes = now.trial.crashes + 1;
        if (crashes >= TRIAL_CRASHES) slots.rollBack(`exited ${crashes} times before healthy`);
        else
          slots.update((s) => {
            if (s.trial) s.trial.crashes = crashes;
          });
      }
      process.stdout.write(`kiosk-launch: core exited (${signal ?? code}), starting again\n`);
      setTimeout(start, 1000);
    });
  };

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      stopping = true;
      if (child && child.exitCode === null) child.kill(signal);
      else process.exit(0);
    });
  start();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const configFile = process.argv[2] ?? process.env.KIOSK_CONFIG ?? '/etc/parcel-locker/kiosk.json';
  try {
    launch(configFile);
  } catch (error) {
    process.stderr.write(`kiosk-launch: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
