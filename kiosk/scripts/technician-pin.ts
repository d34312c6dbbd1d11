/**
 * Prints the hash of a technician PIN for the kiosk configuration's `technicianPinHash`:
 *   pnpm --filter @locker/kiosk technician-pin 482913
 */
import { hashTechnicianPin } from '../src/core/technician';

const pin = process.argv[2] ?? '';
if (!/^\d{4,12}$/.test(pin)) {
  process.stderr.write('usage: technician-pin <PIN of 4 to 12 digits>\n');
  process.exit(2);
}
process.stdout.write(`${hashTechnicianPin(pin)}\n`);
