import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../bin/lockctl.mjs');

async function lockctl(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let simulator: ReturnType<typeof spawn>;
let where = '';
beforeAll(async () => {
  // The technician's own simulator, as `lockctl simulate` runs it, on a pseudo-terminal.
  simulator = spawn(
    process.execPath,
    [BIN, 'simulate', '--boards', '2', '--auto-close', '150', '--json'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  where = await new Promise<string>((resolve) => {
    let out = '';
    simulator.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { listening: string }).listening);
    });
  });
});
afterAll(() => {
  simulator.kill();
});

describe('lockctl', () => {
  it('scans the bus and reads every door, as text and as JSON', async () => {
    const scan = await lockctl('scan', '--port', where, '--json');
    expect(JSON.parse(scan.stdout)).toEqual({ boards: [0, 1] });
    const status = await lockctl('status', '--port', where, '--boards', '2', '--json');
    const { doors } = JSON.parse(status.stdout) as {
      doors: { position: number; closed: boolean }[];
    };
    expect(doors).toHaveLength(32);
    expect(doors.every((d) => d.closed)).toBe(true);
    const text = await lockctl('status', '--port', where, '--boards', '2');
    expect(text.stdout).toMatch(/door {2}32 {2}closed {2}empty/);
  });

  it('opens one door, reports it seen open, then waits for it to be closed', async () => {
    const open = await lockctl('open', '--port', where, '--position', '5', '--wait', '2', '--json');
    expect(open.code).toBe(0);
    expect(JSON.parse(open.stdout)).toMatchObject({
      position: 5,
      outcome: 'opened',
      afterOpen: 'closed_empty',
    });
    const text = await lockctl('open', '--port', where, '--position', '6');
    expect(text.stdout).toMatch(/^door 6: opened in \d+ ms/);
  });

  it('runs the open-all cycle test over a board and reports every door closed again', async () => {
    const cycle = await lockctl('cycle', '--port', where, '--boards', '1', '--wait', '2', '--json');
    expect(cycle.code).toBe(0);
    const report = JSON.parse(cycle.stdout) as { results: { ok: boolean }[]; failed: number[] };
    expect(report.results).toHaveLength(16);
    expect(report.failed).toEqual([]);
  });

  it('monitors the bus, printing every frame in hex with a timestamp', async () => {
    const monitor = spawn(
      process.execPath,
      [BIN, 'monitor', '--port', where, '--interval', '50', '--json'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const lines = await new Promise<string[]>((resolve) => {
      let out = '';
      monitor.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const complete = out.split('\n').filter(Boolean);
        if (complete.length >= 4) resolve(complete.slice(0, 4));
      });
    });
    monitor.kill();
    const frames = lines.map(
      (l) => JSON.parse(l) as { at: string; direction: string; frame: string },
    );
    expect(frames[0]).toMatchObject({ direction: 'tx', frame: '02 00 30 03 35' });
    expect(frames[1]).toMatchObject({
      direction: 'rx',
      frame: expect.stringMatching(/^02 00 35 /),
    });
    expect(Date.parse(frames[0]!.at)).not.toBeNaN();
  });

  it('reads and sets the unlock time', async () => {
    expect(
      JSON.parse((await lockctl('unlock-time', '--port', where, '--board', '1', '--json')).stdout),
    ).toEqual({ board: 1, unlockTimeMs: 550 });
    expect(
      JSON.parse(
        (await lockctl('unlock-time', '--port', where, '--board', '1', '--set', '800', '--json'))
          .stdout,
      ),
    ).toEqual({ board: 1, unlockTimeMs: 800 });
  });

  it('explains a missing port and a missing connection, with exit code 1', async () => {
    const missing = await lockctl('status', '--port', '/dev/ttyUSB77', '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: {
        code: 'PORT_NOT_FOUND',
        message: expect.stringContaining('/dev/ttyUSB77 does not exist'),
      },
    });
    expect(missing.stderr).toContain('is the USB adapter plugged in?');
    const none = await lockctl('status');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('give --port');
    expect((await lockctl('ports', '--json')).code).toBe(0);
  });
});
