import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadKioskConfig } from './config';

function configFile(content: unknown, mode = 0o600): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'kcfg-')), 'kiosk.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(file, mode);
  return file;
}

const valid = {
  serverUrl: 'https://lockers.example',
  deviceToken: 'tdev_0123456789abcdef0123',
  lock: { kind: 'serial', path: '/dev/ttyUSB0' },
  cabinetFile: 'cabinet.json',
  dataDir: './data',
};

describe('kiosk configuration', () => {
  it('reads a valid file, fills defaults and resolves the data folder beside it', () => {
    const file = configFile(valid);
    const config = loadKioskConfig(file);
    expect(config.lock).toEqual({ kind: 'serial', path: '/dev/ttyUSB0', baudRate: 19200 });
    expect(config.heartbeatIntervalSeconds).toBe(60);
    expect(config.dataDir).toBe(path.join(path.dirname(file), 'data'));
    expect(config.cabinetFile).toBe(path.join(path.dirname(file), 'cabinet.json'));
  });

  it('asks for a cabinet file (or a board count) for a real cabinet, and takes no wiring of its own', () => {
    const noCabinet = { ...valid, cabinetFile: undefined };
    expect(() => loadKioskConfig(configFile(noCabinet))).toThrow(/cabinetFile: give cabinetFile/);
    const counted = { ...noCabinet, lock: { ...valid.lock, boards: 3 } };
    expect(loadKioskConfig(configFile(counted)).lock).toMatchObject({ boards: 3 });
    expect(() => loadKioskConfig(configFile({ ...valid, positionOverrides: {} }))).toThrow(
      /positionOverrides/,
    );
  });

  it('takes the stable /dev/serial/by-id path of an adapter as it is', () => {
    const byId = '/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A10K5Q2V-if00-port0';
    const config = loadKioskConfig(configFile({ ...valid, lock: { kind: 'serial', path: byId } }));
    expect(config.lock).toEqual({ kind: 'serial', path: byId, baudRate: 19200 });
  });

  it('refuses a token file others can read, naming the fix', () => {
    expect(() => loadKioskConfig(configFile(valid, 0o644))).toThrow(/chmod 600/);
    expect(() => loadKioskConfig(configFile(valid, 0o640))).toThrow(ConfigError);
  });

  it('names every mistake with its field', () => {
    const file = configFile({
      ...valid,
      serverUrl: 'ftp://x',
      deviceToken: 'short',
      lock: { kind: 'usb' },
      color: 'red',
    });
    let message = '';
    try {
      loadKioskConfig(file);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/serverUrl:/);
    expect(message).toMatch(/deviceToken:/);
    expect(message).toMatch(/lock\.kind|lock:/);
    expect(message).toMatch(/color|Unrecognized/i);
  });

  it('says so when the file is missing or not JSON', () => {
    expect(() => loadKioskConfig('/nonexistent/kiosk.json')).toThrow(/not found/);
    expect(() => loadKioskConfig(configFile('{ not json'))).toThrow(/not valid JSON/);
  });
});
