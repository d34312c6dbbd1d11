import { SerialPort } from 'serialport';
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

export interface PortInfo {
  path: string;
  manufacturer?: string;
  serialNumber?: string;
  source: 'udev' | 'dev-scan';
}

const CANDIDATES = /^tty(USB|ACM|AMA|S|XRUSB)\d+$/;

/** Ports as the kernel shows them, for machines without udev (minimal kiosk images, containers). */
function scanDev(): PortInfo[] {
  const ports: PortInfo[] = [];
  try {
    for (const name of readdirSync('/dev/serial/by-id')) {
      ports.push({
        path: realpathSync(path.join('/dev/serial/by-id', name)),
        manufacturer: name,
        source: 'dev-scan',
      });
    }
  } catch {
    // no by-id folder: no udev
  }
  for (const name of readdirSync('/dev').filter((n) => CANDIDATES.test(n))) {
    const device = `/dev/${name}`;
    // Of the many ttyS nodes, only those with a device behind them are real ports.
    if (name.startsWith('ttyS')) {
      try {
        readdirSync(`/sys/class/tty/${name}/device`);
      } catch {
        continue;
      }
    }
    if (!ports.some((p) => p.path === device)) ports.push({ path: device, source: 'dev-scan' });
  }
  return ports;
}

/** Serial ports: the platform's list (udev), else a scan of /dev. */
export async function listPorts(): Promise<PortInfo[]> {
  try {
    // PortInfo's type lives in a package serialport does not re-export.
    const found = (await SerialPort.list()) as {
      path: string;
      manufacturer?: string;
      serialNumber?: string;
    }[];
    if (found.length > 0) {
      return found.map((p) => ({
        path: p.path,
        manufacturer: p.manufacturer,
        serialNumber: p.serialNumber,
        source: 'udev' as const,
      }));
    }
  } catch {
    // udevadm missing or failing: fall back to the scan
  }
  return scanDev();
}
