import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKioskLog } from './log';

describe('kiosk log', () => {
  it('writes JSON lines to a rotating file under the data directory, and closes', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kiosk-log-'));
    const { log, close } = await createKioskLog(dataDir, { stdout: false });
    log.child({ correlation_id: 'c-1' }).warn({ status: 503 }, 'refused');
    await close();
    const files = readdirSync(path.join(dataDir, 'logs'));
    expect(files).toEqual(['kiosk.1.log']);
    const [line] = readFileSync(path.join(dataDir, 'logs', files[0]!), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(line).toMatchObject({
      app: 'kiosk',
      correlation_id: 'c-1',
      status: 503,
      msg: 'refused',
    });
  });

  it('drops a line logged after it closed instead of throwing (a request still in flight at stop)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kiosk-log-'));
    const { log, close } = await createKioskLog(dataDir, { stdout: false });
    log.info('before');
    await close();
    expect(() => log.error({ error: 'late' }, 'background task failed')).not.toThrow();
    await new Promise((r) => setImmediate(r));
    const text = readFileSync(path.join(dataDir, 'logs', 'kiosk.1.log'), 'utf8');
    expect(text).toContain('before');
    expect(text).not.toContain('background task failed');
  });
});
