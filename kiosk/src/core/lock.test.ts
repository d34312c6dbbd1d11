import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KioskConfigSchema } from './config';
import { SimulatedCabinet, servePty, type PtySimulator } from '@locker/lock-driver';
import { connectCabinet, unstablePortName, type CabinetHardware } from './lock';

const open: CabinetHardware[] = [];
const wires: PtySimulator[] = [];
afterEach(async () => {
  for (const hardware of open.splice(0)) await hardware.close();
  for (const wire of wires.splice(0)) await wire.close();
});

const dir = () => mkdtempSync(path.join(tmpdir(), 'kiosk-lock-'));
const config = (extra: object) =>
  KioskConfigSchema.parse({
    serverUrl: 'http://127.0.0.1:1',
    deviceToken: 'tdev_0123456789abcdef0123',
    dataDir: '/tmp',
    ...extra,
  });

describe('the kiosk’s cabinet', () => {
  it('comes from the cabinet file: its boards, its wiring and its layout', async () => {
    const file = path.join(dir(), 'cabinet.json');
    writeFileSync(
      file,
      JSON.stringify({
        boards: [0, 1],
        positionOverrides: { 1: { board: 1, lock: 15 }, 32: { board: 0, lock: 0 } },
        layout: {
          columns: [
            [...Array(16).keys()].map((i) => i + 1),
            [...Array(16).keys()].map((i) => i + 17),
          ],
        },
      }),
    );
    const hardware = await connectCabinet(
      config({ lock: { kind: 'simulator' }, cabinetFile: file }),
    );
    open.push(hardware);
    expect(hardware.cabinet.layout.columns).toHaveLength(2);
    const pulsed: number[] = [];
    hardware.simulator!.cabinet.on('unlock', (p: number) => pulsed.push(p));
    expect((await hardware.board.open(1)).outcome).toBe('opened');
    expect(pulsed).toEqual([32]); // the lock at default position 32 drives door 1
    const reading = await hardware.board.readDoors();
    expect(reading.boards).toEqual([
      { board: 0, reachable: true },
      { board: 1, reachable: true },
    ]);
  });

  it('without a cabinet file: the configured board count, default wiring, columns of 8', async () => {
    const hardware = await connectCabinet(config({ lock: { kind: 'simulator', boards: 3 } }));
    open.push(hardware);
    expect(hardware.cabinet.boards).toEqual([0, 1, 2]);
    expect(hardware.cabinet.layout.columns).toHaveLength(6);
    expect((await hardware.board.readDoors()).doors).toHaveLength(48);
  });

  it('opens a door through the stable /dev/serial/by-id path of its adapter (a link, as udev makes it)', async () => {
    // The adapter as udev names it for good: a link under serial/by-id to the tty.
    const byId = path.join(dir(), 'serial', 'by-id');
    mkdirSync(byId, { recursive: true });
    const port = path.join(byId, 'usb-FTDI_FT232R_USB_UART_A10K5Q2V-if00-port0');
    const cabinet = new SimulatedCabinet({ boards: 1 });
    wires.push(await servePty(cabinet, {}, port));
    const warnings: string[] = [];
    const hardware = await connectCabinet(
      config({ lock: { kind: 'serial', path: port, boards: 1 } }),
      { info: () => {}, warn: (m) => warnings.push(m) },
    );
    open.push(hardware);
    expect((await hardware.board.open(3)).outcome).toBe('opened');
    expect(cabinet.door(3).closed).toBe(false);
    expect(warnings).toEqual([]);
    // A kernel name is taken too, with a hint of the stable one.
    expect(unstablePortName('/dev/ttyUSB0')).toBe(true);
    expect(unstablePortName(port)).toBe(false);
  });

  it('keeps the simulated doors’ contents in the state file across restarts', async () => {
    const stateFile = path.join(dir(), 'doors.json');
    const settings = config({ lock: { kind: 'simulator', boards: 1, stateFile } });
    const first = await connectCabinet(settings);
    first.simulator!.cabinet.setItem(4, true);
    await first.close();
    const again = await connectCabinet(settings);
    open.push(again);
    expect(await again.board.readDoor(4)).toMatchObject({ known: true, itemPresent: true });
  });
});
