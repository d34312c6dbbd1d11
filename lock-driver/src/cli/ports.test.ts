import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listPorts } from './ports';

/** A fake /dev with two adapters and udev's by-id links to them. */
function fakeDev() {
  const root = mkdtempSync(path.join(tmpdir(), 'dev-'));
  const dev = path.join(root, 'dev');
  const byId = path.join(dev, 'serial', 'by-id');
  mkdirSync(byId, { recursive: true });
  for (const n of ['ttyUSB0', 'ttyUSB1']) writeFileSync(path.join(dev, n), '');
  const ftdi = 'usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0';
  symlinkSync('../../ttyUSB1', path.join(byId, ftdi));
  return { dev, byId, ftdi };
}

describe('lockctl ports', () => {
  it('offers the stable /dev/serial/by-id path of each adapter udev lists', async () => {
    const { dev, byId, ftdi } = fakeDev();
    const ports = await listPorts({
      byIdDir: byId,
      list: () =>
        Promise.resolve([
          { path: path.join(dev, 'ttyUSB0') },
          { path: path.join(dev, 'ttyUSB1'), manufacturer: 'FTDI' },
        ]),
    });
    expect(ports).toEqual([
      { path: path.join(dev, 'ttyUSB0'), device: path.join(dev, 'ttyUSB0'), source: 'udev' },
      {
        path: path.join(byId, ftdi),
        device: path.join(dev, 'ttyUSB1'),
        manufacturer: 'FTDI',
        source: 'udev',
      },
    ]);
  });

  it('finds the by-id path too when it scans /dev itself (no udev list)', async () => {
    const { dev, byId, ftdi } = fakeDev();
    const ports = await listPorts({ byIdDir: byId, devDir: dev, list: () => Promise.resolve([]) });
    expect(ports.map((p) => p.path)).toEqual([path.join(dev, 'ttyUSB0'), path.join(byId, ftdi)]);
    expect(ports.every((p) => p.source === 'dev-scan')).toBe(true);
  });
});
