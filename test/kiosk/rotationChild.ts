/**
 * A kiosk in its own process whose power is cut (SIGKILL, nothing flushed after) at one
 * step of a token rotation: `rotationChild.ts CONFIG STEP`. Prints `reached STEP` first,
 * so the test knows the cut fell where it meant, and `done` if the rotation ended.
 */
import { KioskCore, loadKioskConfig, type RotationStep } from '@locker/kiosk';

const [configFile, cutAt] = process.argv.slice(2) as [string, RotationStep];
await KioskCore.start(loadKioskConfig(configFile), {
  stdout: false,
  rotationCheckpoint: (step) => {
    if (step !== cutAt) return;
    // A pipe's write is synchronous on Linux: the line is out before the signal.
    process.stdout.write(`reached ${step}\n`);
    process.kill(process.pid, 'SIGKILL');
  },
});
