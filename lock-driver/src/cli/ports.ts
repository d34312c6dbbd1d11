import { SerialPort } from 'serialport';
import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export interface PortInfo {
  /**
   * The path to give lockctl and the kiosk: the stable `/dev/serial/by-id/…` link where
   * udev made one (it names the adapter and survives re-plugging into another USB
   * socket), else the kernel's device.
   */
  path: string;
  /** The kernel's device (`/dev/ttyUSB0`): its number can change at the next plug. */
  device: string;
  manufacturer?: string;
  serialNumber?: string;
  source: 'udev' | 'dev-scan';
}

export interface ListPortsOptions {
  /** Where udev keeps its stable links; tests give a folder of their own. */
  byIdDir?: string;
  /** The platform's port list (serialport's, through udev); tests give their own. */
  list?: () => Promise<{ path: string; manufacturer?: string; serialNumber?: string }[]>;
  /** Where device nodes live (the scan without udev). */
  devDir?: string;
}

const CANDIDATES = /^tty(USB|ACM|AMA|S|XRUSB)\d+$/;

/** by-id link -> the device it points to, resolved without touching the device. */
function byIdLinks(dir: string): { link: string; device: string }[] {
  try {
    return readdirSync(dir).map((name) => {
      const link = path.join(dir, name);
      return { link, device: path.resolve(dir, readlinkSync(link)) };
    });
  } catch {
    return []; // no by-id folder: no udev, or no adapter
  }
}

/** Ports as the kernel shows them, for machines without udev (minimal kiosk images, containers). */
function scanDev(devDir: string): { path: string }[] {
  const ports: { path: string }[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(devDir).filter((n) => CANDIDATES.test(n));
  } catch {
    return ports;
  }
  for (const name of names) {
    // Of the many ttyS nodes, only those with a device behind them are real ports.
    if (name.startsWith('ttyS')) {
      try {
        readdirSync(`/sys/class/tty/${name}/device`);
      } catch {
        continue;
      }
    }
    ports.push({ path: path.join(devDir, name) });
  }
  return ports;
}

/** Serial ports: the platform's list (udev), else a scan of /dev; by-id paths first. */
export async function listPorts(options: ListPortsOptions = {}): Promise<PortInfo[]> {
  const links = byIdLinks(options.byIdDir ?? '/dev/serial/by-id');
  let found: { path: string; manufacturer?: string; serialNumber?: string }[] = [];
  let source: PortInfo['source'] = 'udev';
  try {
    // PortInfo's type lives in a package serialport does not re-export.
    found = await (options.list ?? (() => SerialPort.list() as Promise<typeof found>))();
  } catch {
    // udevadm missing or failing: fall back to the scan
  }
  if (found.length === 0) {
    source = 'dev-scan';
    found = scanDev(options.devDir ?? '/dev');
    for (const { device } of links)
      if (!found.some((p) => p.path === device)) found.push({ path: device });
  }
  return found.map((p) => {
    const link = links.find((l) => l.device === p.path || l.link === p.path);
    return {
      path: link?.link ?? p.path,
      device: link?.device ?? p.path,
      ...(p.manufacturer ? { manufacturer: p.manufacturer } : {}),
      ...(p.serialNumber ? { serialNumber: p.serialNumber } : {}),
      source,
    };
  });
}
