import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLockctl } from '../src/cli/run';
import { SimulatedCabinet, servePty } from '../src/index';
import { afterThisTest, until } from './wiredCabinet';

const run = promisify(execFile);
const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../bin/lockctl.mjs');

/**
 * lockctl run through its entry point inside this process, its streams captured: most
 * tests, as starting a process (and compiling the CLI) for each call costs seconds on a
 * loaded machine.
 */
export async function lockctl(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runLockctl(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
  });
  return { code, stdout, stderr };
}

/** lockctl as a technician types it: its own process, through the installed bin. */
export async function lockctlProcess(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `lockctl simulate …` as a technician runs it; resolves with where it listens. */
export async function simulator(...args: string[]) {
  const child = spawn(process.execPath, [BIN, 'simulate', ...args, '--json'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const where = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { listening: string }).listening);
    });
  });
  return { child, where };
}

let sim: Awaited<ReturnType<typeof simulator>>;
let faulty: Awaited<ReturnType<typeof simulator>>;
let gateway = '';
beforeAll(async () => {
  // A healthy cabinet on a pseudo-terminal. Its doors shut 1 s after they open: longer than
  // the driver's recovery from a lost reply (lockctl's 300 ms reply timeout) plus a loaded
  // machine's delays (at 400 ms one loaded run failed this cycle check, most likely so).
  sim = await simulator('--boards', '2', '--auto-close', '1000');
  // A faulty one behind a TCP "gateway": board 2 dead, door 5 jammed, a reply lost after
  // every unlock; doors stay open. (Two lost in a row after a pulse is a board that went
  // away, and a door then reads unknown, not did_not_open.)
  faulty = await simulator(
    ...['--boards', '3', '--tcp', '0', '--dead-board', '2', '--jam', '5'],
    ...['--drop-after-unlock', '1'],
  );
  gateway = faulty.where.replace('tcp://', '');
});
afterAll(() => {
  sim.child.kill();
  faulty.child.kill();
});

describe('lockctl on a healthy cabinet (pseudo-terminal)', () => {
  it('scans the bus and reads every door, as text and as JSON', async () => {
    const scan = await lockctlProcess('scan', '--port', sim.where, '--json');
    expect(JSON.parse(scan.stdout)).toEqual({ ok: true, boards: [0, 1] });
    const status = await lockctl('status', '--port', sim.where, '--boards', '2', '--json');
    const { doors } = JSON.parse(status.stdout) as { doors: { closed: boolean }[] };
    expect(doors).toHaveLength(32);
    expect(doors.every((d) => d.closed)).toBe(true);
    const text = await lockctl('status', '--port', sim.where);
    expect(text.stdout).toMatch(/^boards 0, 1 answered a broadcast/);
    expect(text.stdout).toMatch(/door {2}32 {2}closed {2}empty/);
    expect(text.code).toBe(0);
  });

  it('opens one door, reports it seen open, then waits for it to be shut', async () => {
    const open = await lockctl(
      'open',
      '--port',
      sim.where,
      '--position',
      '5',
      '--wait',
      '5',
      '--json',
    );
    expect(open.code).toBe(0);
    expect(JSON.parse(open.stdout)).toMatchObject({
      ok: true,
      position: 5,
      outcome: 'opened',
      pulses: 1,
      afterOpen: 'closed_empty',
    });
    const text = await lockctl('open', '--port', sim.where, '--position', '6');
    expect(text.stdout).toMatch(/^door 6 opened \(seen open \d+ ms after the pulse\)/);
  });

  it('runs the cycle test over a board and reports every door shut again', async () => {
    const cycle = await lockctl(
      'cycle',
      '--port',
      sim.where,
      '--boards',
      '1',
      '--wait',
      '5',
      '--json',
    );
    expect(cycle.code, cycle.stdout + cycle.stderr).toBe(0);
    const report = JSON.parse(cycle.stdout) as { results: { ok: boolean }[]; failed: number[] };
    expect(report.results).toHaveLength(16);
    expect(report.failed).toEqual([]);
  });

  it('monitors the bus, printing every frame in hex with a timestamp', async () => {
    const monitor = spawn(
      process.execPath,
      [BIN, 'monitor', '--port', sim.where, '--boards', '1', '--interval', '50', '--json'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const lines = await new Promise<string[]>((resolve) => {
      let out = '';
      monitor.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const complete = out.split('\n').filter(Boolean);
        if (complete.length >= 4) resolve(complete.slice(0, 4));
      });
    });
    // The port is free again only once the monitor has exited.
    const exited = once(monitor, 'exit');
    monitor.kill();
    await exited;
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

  it('reads and sets the unlock time, refusing out-of-range values before sending', async () => {
    const read = await lockctl('unlock-time', '--port', sim.where, '--board', '1', '--json');
    expect(JSON.parse(read.stdout)).toMatchObject({ ok: true, board: 1, unlockTimeMs: 550 });
    const set = await lockctl(
      'unlock-time',
      '--port',
      sim.where,
      '--board',
      '1',
      '--set',
      '800',
      '--json',
    );
    expect(JSON.parse(set.stdout)).toEqual({ ok: true, board: 1, unlockTimeMs: 800 });
    const tooLong = await lockctl(
      'unlock-time',
      '--port',
      sim.where,
      '--board',
      '1',
      '--set',
      '100000',
      '--json',
    );
    expect(tooLong.code).toBe(2);
    expect(JSON.parse(tooLong.stdout).error.message).toMatch(
      /--set must be a whole number from 0 to 60000/,
    );
    const ambiguous = await lockctl(
      'unlock-time',
      '--port',
      sim.where,
      '--board',
      '0',
      '--set',
      '8280',
    );
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/use 8270 or 8290 ms/);
  });

  it('reads each board’s software and hardware version with the vendor’s F5 B6 query', async () => {
    const firmware = await lockctl('firmware', '--port', sim.where, '--boards', '2');
    // Code and stderr in the comparison, so a failure says why.
    expect(firmware).toMatchObject({
      code: 0,
      stderr: '',
      stdout: 'board 0: software 1, hardware 1\nboard 1: software 1, hardware 1\n',
    });
  });
});

describe('lockctl on a faulty cabinet behind a TCP gateway', () => {
  it('opens a door whose status replies are lost after the pulse, with one unlock', async () => {
    const open = await lockctl(
      'open',
      '--tcp',
      gateway,
      '--boards',
      '3',
      '--position',
      '3',
      '--json',
    );
    expect(open.code).toBe(0);
    expect(JSON.parse(open.stdout)).toMatchObject({ outcome: 'opened', pulses: 1 });
  });

  it('exits 1 with a sentence for a jammed door, a silent board and a door left open', async () => {
    const jammed = await lockctl('open', '--tcp', gateway, '--position', '5');
    expect(jammed.code).toBe(1);
    expect(jammed.stdout).toMatch(
      /^door 5 DID NOT OPEN: the pulse went out but the door stayed shut/,
    );
    const silent = await lockctl(
      'open',
      '--tcp',
      gateway,
      '--boards',
      '3',
      '--position',
      '40',
      '--json',
    );
    expect(silent.code).toBe(1);
    expect(JSON.parse(silent.stdout)).toMatchObject({ ok: false, outcome: 'unknown', pulses: 0 });
    const status = await lockctl('status', '--tcp', gateway, '--boards', '3');
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/door {2}33 {2}unknown \(board silent\)/);
    expect(status.stdout).toMatch(/door {2}17 {2}closed/);
    expect(status.stdout.trim().split('\n').at(-1)).toBe(
      'board 2 did not answer: its doors are unknown (check power, address switches and wiring)',
    );
    const firmware = await lockctl('firmware', '--tcp', gateway, '--board', '2', '--json');
    expect(firmware.code).toBe(1);
    expect(JSON.parse(firmware.stdout).error).toEqual({
      code: 'TIMEOUT',
      message: 'board 2 did not answer (check its power, its address switches and the A/B wiring)',
      detail: expect.stringMatching(/^sent F5 B6 02 00 5F 0C, no reply within \d+ ms$/),
    });
    const verbose = await lockctl('firmware', '--tcp', gateway, '--board', '2');
    expect(verbose.stderr).not.toMatch(/F5 B6 02/);
    expect(
      (await lockctl('firmware', '--tcp', gateway, '--board', '2', '--verbose')).stderr,
    ).toMatch(/F5 B6 02/);
  });

  it('reports an already-open door without pulsing, and fails the cycle on it', async () => {
    await lockctl('open', '--tcp', gateway, '--position', '20');
    const again = await lockctl('open', '--tcp', gateway, '--position', '20', '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'already_open', pulses: 0 });
  });

  it('exits 1 for a cycle with failures and for a door left open, listing them', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cab-')), 'cabinet.json');
    const absent = Object.fromEntries(
      [...Array(48).keys()]
        .map((i) => i + 1)
        .filter((p) => p !== 5 && p !== 6)
        .map((p) => [p, null]),
    );
    writeFileSync(file, JSON.stringify({ boards: [0, 1, 2], positionOverrides: absent }));
    const cycle = await lockctl('cycle', '--tcp', gateway, '--cabinet', file, '--wait', '1');
    expect(cycle.code).toBe(1);
    expect(cycle.stdout).toMatch(/door 5: DID NOT OPEN {2}<- FAILED/);
    expect(cycle.stdout).toMatch(/door 6: opened, LEFT OPEN {2}<- FAILED/);
    expect(cycle.stdout.trim().split('\n').at(-1)).toBe('FAILED: 2 of 2 doors (5, 6)');
    const left = await lockctl(
      'open',
      '--tcp',
      gateway,
      '--position',
      '7',
      '--wait',
      '1',
      '--json',
    );
    expect(left.code).toBe(1);
    expect(JSON.parse(left.stdout)).toMatchObject({
      ok: false,
      outcome: 'opened',
      afterOpen: 'left_open',
    });
  });

  it('monitor marks noise and bad checksums on a noisy line', async () => {
    const noisy = await simulator('--boards', '1', '--tcp', '0', '--noise');
    try {
      const monitor = spawn(
        process.execPath,
        [
          BIN,
          'monitor',
          '--tcp',
          noisy.where.replace('tcp://', ''),
          '--boards',
          '1',
          '--interval',
          '20',
          '--json',
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const marked = await new Promise<{ note: string; frame: string }>((resolve) => {
        let out = '';
        monitor.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const line = out.split('\n').find((l) => l.includes('"note"'));
          if (line) resolve(JSON.parse(line));
        });
      });
      // The port is free again only once the monitor has exited.
      const exited = once(monitor, 'exit');
      monitor.kill();
      await exited;
      expect(marked.note).toMatch(/^(noise \(not a frame\)|BAD CHECKSUM \(frame dropped\))$/);
      expect(marked.frame).toMatch(/^[0-9A-F]{2}( [0-9A-F]{2})*$/);
    } finally {
      noisy.child.kill();
    }
  });

  it('explains that a gateway’s baud is the gateway’s own setting', async () => {
    const probe = await lockctl('probe', '--tcp', gateway);
    expect(probe.stdout).toMatch(/baud rate is a setting of the gateway/);
    expect(probe.stdout).toMatch(/boards 0, 1 answer/);
    expect(probe.stdout).not.toMatch(/9600|57600|115200/);
  });
});

describe('lockctl against the faults of the field', () => {
  it('opens a door through a gateway 30 ms between reply bytes, with the shared timings', async () => {
    const slow = await simulator('--boards', '1', '--tcp', '0', '--byte-gap', '30');
    try {
      const tcp = slow.where.replace('tcp://', '');
      const open = await lockctl(
        'open',
        '--tcp',
        tcp,
        '--boards',
        '1',
        '--position',
        '2',
        '--json',
      );
      expect(JSON.parse(open.stdout)).toMatchObject({ ok: true, outcome: 'opened', pulses: 1 });
      const status = await lockctl('status', '--tcp', tcp, '--boards', '1', '--json');
      expect(JSON.parse(status.stdout)).toMatchObject({ ok: true });
    } finally {
      slow.child.kill();
    }
  });

  it('calls a door whose board lost power at the pulse unknown, not DID NOT OPEN', async () => {
    const cut = await simulator('--boards', '1', '--tcp', '0', '--power-cut-after-pulse', '1200');
    try {
      const tcp = cut.where.replace('tcp://', '');
      const open = await lockctl('open', '--tcp', tcp, '--boards', '1', '--position', '3');
      expect(open.code).toBe(1);
      expect(open.stdout).toMatch(/^door 3: board 0 stopped answering after the pulse/);
      expect(open.stdout).not.toMatch(/DID NOT OPEN/);
    } finally {
      cut.child.kill();
    }
  });

  it('sets and clears the delayed unlock (0x39), and reads the vendor’s version', async () => {
    const delayed = await simulator('--boards', '1', '--tcp', '0', '--unlock-delay', '3');
    try {
      const tcp = delayed.where.replace('tcp://', '');
      const late = await lockctl('open', '--tcp', tcp, '--boards', '1', '--position', '1');
      expect(late.stdout).toMatch(/^door 1 DID NOT OPEN/);
      const cleared = await lockctl('unlock-delay', '--tcp', tcp, '--board', '0', '--set', '0');
      expect(cleared).toMatchObject({
        code: 0,
        stdout: 'board 0: delayed unlock cleared (its doors open on the pulse)\n',
      });
      const open = await lockctl(
        'open',
        '--tcp',
        tcp,
        '--boards',
        '1',
        '--position',
        '2',
        '--json',
      );
      expect(JSON.parse(open.stdout)).toMatchObject({ outcome: 'opened' });
      for (const args of [['--set', '251'], []]) {
        const refused = await lockctl('unlock-delay', '--tcp', tcp, '--board', '0', ...args);
        expect(refused.code).toBe(2);
      }
    } finally {
      delayed.child.kill();
    }
  });

  it('refuses a pulse under 200 ms unless --force, and warns under 800 ms', async () => {
    const own = await simulator('--boards', '1', '--tcp', '0');
    try {
      const tcp = own.where.replace('tcp://', '');
      const zero = await lockctl('unlock-time', '--tcp', tcp, '--board', '0', '--set', '0');
      expect(zero.code).toBe(2);
      expect(zero.stderr).toMatch(/releases no lock .* give --force/);
      expect((await lockctl('unlock-time', '--tcp', tcp, '--board', '0', '--json')).stdout).toMatch(
        /"unlockTimeMs":550/,
      );
      const forced = await lockctl(
        ...['unlock-time', '--tcp', tcp, '--board', '0', '--set', '100', '--force', '--json'],
      );
      expect(JSON.parse(forced.stdout)).toMatchObject({ ok: true, unlockTimeMs: 100 });
      const short = await lockctl('unlock-time', '--tcp', tcp, '--board', '0', '--set', '600');
      expect(short.code).toBe(0);
      expect(short.stdout).toMatch(/warning: under 800 ms: .* solenoid locks/);
      const fine = await lockctl('unlock-time', '--tcp', tcp, '--board', '0', '--set', '1000');
      expect(fine.stdout).not.toMatch(/warning/);
    } finally {
      own.child.kill();
    }
  });

  it('changes a board’s baud with 0x40 and talks to it at the new rate', async () => {
    const own = await simulator('--boards', '1');
    try {
      const set = await lockctl('baud', '--port', own.where, '--board', '0', '--set', '57600');
      expect(set).toMatchObject({ code: 0, stderr: '' });
      expect(set.stdout).toMatch(/^board 0 now answers at 57600 baud/);
      const old = await lockctl('scan', '--port', own.where, '--json');
      expect(JSON.parse(old.stdout)).toMatchObject({ ok: false, boards: [] });
      const now = await lockctl('scan', '--port', own.where, '--baud', '57600', '--json');
      expect(JSON.parse(now.stdout)).toEqual({ ok: true, boards: [0] });
      const probe = await lockctl('probe', '--port', own.where);
      expect(probe.stdout).toBe('57600 baud: boards 0\n');
    } finally {
      own.child.kill();
    }
  });
});

describe('lockctl usage', () => {
  it('says one line and exits 2 for a mistyped option, a bad value or a missing connection, with JSON when asked', async () => {
    const typo = await lockctlProcess('open', '--tcp', gateway, '--positon', '3', '--json');
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stdout)).toEqual({
      ok: false,
      error: { code: 'USAGE', message: "Unknown option '--positon'" },
    });
    expect(typo.stderr).not.toMatch(/at .*\.ts/); // no stack trace
    for (const args of [
      ['status', '--port', '/dev/x', '--boards', '11'],
      ['status', '--port', '/dev/x', '--baud', '300'],
      ['open', '--port', '/dev/x', '--position', 'two'],
      ['status', '--tcp', 'host:99999'],
      ['status'],
      ['status', '--port', '/dev/x', '--wait', '3'],
      ['frobnicate'],
    ]) {
      const r = await lockctl(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(/^lockctl: /);
    }
  });

  it('explains a missing port with exit code 3', async () => {
    const missing = await lockctlProcess('status', '--port', '/dev/ttyUSB77', '--json');
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stdout)).toEqual({
      ok: false,
      error: {
        code: 'PORT_NOT_FOUND',
        message: expect.stringContaining('/dev/ttyUSB77 does not exist'),
      },
    });
    expect(missing.stderr).toContain('is the USB adapter plugged in?');
    expect((await lockctl('ports', '--json')).code).toBe(0);
  });

  it('refuses a cabinet file that puts two positions on one lock, naming the field', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cab-')), 'cabinet.json');
    writeFileSync(
      file,
      JSON.stringify({ boards: [0, 1], positionOverrides: { 17: { board: 0, lock: 0 } } }),
    );
    const r = await lockctl(
      'open',
      '--port',
      sim.where,
      '--cabinet',
      file,
      '--position',
      '17',
      '--json',
    );
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe('INVALID_CABINET');
    expect(error.message).toMatch(
      /positionOverrides\.17: positions 1 and 17 are both on board 0, lock 0/,
    );
    expect(readFileSync(file, 'utf8')).toContain('"17"');
  });
});

type Prompt =
  | { kind: 'pulsed'; board: number; lock: number; seen: string }
  | { kind: 'reads open'; board: number; lock: number }
  | { kind: 'shut all' };

const PROMPTS =
  /board (\d+) lock (\d+) pulsed \(([^)]*)\)[^:]*:|board (\d+) lock (\d+) reads open before its pulse[^:]*:|shut every door, then press Enter[^:]*:/g;

/**
 * `lockctl map` in its own process, each prompt answered as it appears, as a person
 * standing at the cabinet would: `answer` returns the line to type (undefined: stop
 * answering, and Ctrl-C the run).
 */
async function runMap(
  args: string[],
  answer: (prompt: Prompt) => Promise<string | undefined> | string | undefined,
) {
  const map = spawn(process.execPath, [BIN, 'map', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  const prompts: Prompt[] = [];
  let answering = Promise.resolve();
  map.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  map.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    const found = [...stderr.matchAll(PROMPTS)];
    for (const m of found.slice(prompts.length)) {
      const prompt: Prompt = m[1]
        ? { kind: 'pulsed', board: Number(m[1]), lock: Number(m[2]), seen: m[3]! }
        : m[4]
          ? { kind: 'reads open', board: Number(m[4]), lock: Number(m[5]) }
          : { kind: 'shut all' };
      prompts.push(prompt);
      answering = answering.then(async () => {
        const line = await answer(prompt);
        if (line === undefined) map.kill('SIGINT');
        else map.stdin.write(`${line}\n`);
      });
    }
  });
  const code = await new Promise<number | null>((resolve) =>
    map.on('exit', (c, signal) => resolve(signal ? -1 : c)),
  );
  return { code, stdout, stderr, prompts };
}

describe('lockctl map (commissioning)', () => {
  it('opens each lock, takes the number the technician reads on the door, checks the doors shut, and writes the cabinet file', async () => {
    // The cabinet as built: locks 1 and 2 drive each other's doors, lock 3 has no door.
    const wiredTo: Record<number, string> = { 1: '2', 2: '1', 3: '' };
    const own = await simulator('--boards', '1', '--tcp', '0', '--auto-close', '1000');
    const cabinet = path.join(mkdtempSync(path.join(tmpdir(), 'map-')), 'cabinet.json');
    try {
      const tcp = own.where.replace('tcp://', '');
      const allShut = () =>
        until(async () => {
          const now = await lockctl('status', '--tcp', tcp, '--boards', '1', '--json');
          const doors = (JSON.parse(now.stdout) as { doors: { closed: boolean }[] }).doors;
          return doors.every((d) => d.closed) ? true : undefined;
        });
      const map = await runMap(
        ['--tcp', tcp, '--boards', '1', '--cabinet', cabinet, '--columns', '4'],
        async (prompt) => {
          if (prompt.kind === 'shut all') {
            // The doors map opened shut themselves after 1 s; answer once they have.
            await allShut();
            return '';
          }
          if (prompt.kind !== 'pulsed') throw new Error(`unexpected ${prompt.kind}`);
          return wiredTo[prompt.lock] ?? String(prompt.lock);
        },
      );
      expect(map.code, map.stderr).toBe(0);
      const pulsed = map.prompts.filter((p) => p.kind === 'pulsed');
      expect(pulsed).toHaveLength(16);
      expect(pulsed.every((p) => p.seen === 'a door opened')).toBe(true);
      expect(map.stdout).toMatch(/^every door reads shut; wrote /);
      const written = JSON.parse(readFileSync(cabinet, 'utf8'));
      expect(written.positionOverrides).toEqual({
        1: { board: 0, lock: 1 },
        2: { board: 0, lock: 0 },
        3: null,
      });
      expect(written.layout.columns[0]).toEqual([1, 2, 4, 5]);
      // Over a gateway the line's rate is the gateway's: no baud recorded.
      expect(written.boardSettings).toEqual({
        0: { software: 1, hardware: 1, unlockTimeMs: 550, unlockDelayS: 0 },
      });
      // lockctl and the kiosk open door 1 on lock 2.
      const open = await lockctl(
        ...['open', '--tcp', tcp, '--cabinet', cabinet, '--position', '1', '--json'],
      );
      expect(JSON.parse(open.stdout)).toMatchObject({ ok: true, outcome: 'opened' });
      const status = await lockctl('status', '--tcp', tcp, '--cabinet', cabinet, '--json');
      expect(
        JSON.parse(status.stdout).doors.map((d: { position: number }) => d.position),
      ).not.toContain(3);
      const three = await lockctl('open', '--tcp', tcp, '--cabinet', cabinet, '--position', '3');
      expect(three.code).toBe(2);
      expect(three.stderr).toMatch(/door 3 is not in this cabinet \(doors 1-2, 4-16\)/);
    } finally {
      own.child.kill();
    }
  });

  it('commissions a board with 8 doors wired and a delayed unlock: Enter skips a channel that reads open, a rerun after Ctrl-C resumes, the file records the board', async () => {
    const board = new SimulatedCabinet({
      boards: 1,
      doorsWired: 8,
      autoCloseMs: 600,
      unlockDelayS: 3,
    });
    afterThisTest(() => board.stop());
    const pty = await servePty(board, { honourDriverBaud: true });
    afterThisTest(() => pty.close());
    const unlocks: number[] = [];
    board.on('unlock', (p: number) => unlocks.push(p));
    const cabinet = path.join(mkdtempSync(path.join(tmpdir(), 'map8-')), 'cabinet.json');
    const args = ['--port', pty.path, '--boards', '1', '--cabinet', cabinet];
    const shut = () =>
      until(() =>
        Promise.resolve([...Array(8).keys()].every((i) => board.door(i + 1).closed) || undefined),
      );
    // First run: five doors named, then Ctrl-C.
    const first = await runMap(args, (prompt) =>
      prompt.kind === 'pulsed' && prompt.lock <= 5 ? String(prompt.lock) : undefined,
    );
    expect(first.code).toBe(-1);
    expect(unlocks).toEqual([1, 2, 3, 4, 5, 6]);
    expect(existsSync(`${cabinet}.progress.json`)).toBe(true);
    expect(existsSync(cabinet)).toBe(false);
    // Second run: resumes at lock 6; locks 9-16 read open (no door): Enter moves on.
    await shut();
    const second = await runMap(args, async (prompt) => {
      if (prompt.kind === 'reads open') return '';
      if (prompt.kind === 'shut all') return shut().then(() => '');
      return String(prompt.lock);
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming: 5 answers kept from .*progress\.json/);
    expect(second.prompts[0]).toMatchObject({ kind: 'pulsed', lock: 6, seen: 'a door opened' });
    expect(
      second.prompts.filter((p) => p.kind === 'reads open').map((p) => 'lock' in p && p.lock),
    ).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    // Each lock pulsed once in all (lock 6 again: the first run stopped before its answer).
    expect(unlocks).toEqual([1, 2, 3, 4, 5, 6, 6, 7, 8]);
    expect(existsSync(`${cabinet}.progress.json`)).toBe(false);
    const written = JSON.parse(readFileSync(cabinet, 'utf8'));
    expect(written.boardSettings).toEqual({
      0: { software: 1, hardware: 1, unlockTimeMs: 550, unlockDelayS: 0, baud: 19200 },
    });
    expect(board.unlockDelayS).toEqual([0]);
    expect(Object.keys(written.positionOverrides)).toEqual([
      '9',
      '10',
      '11',
      '12',
      '13',
      '14',
      '15',
      '16',
    ]);
    expect(Date.parse(written.commissionedAt)).not.toBeNaN();
  });

  it('stops before pulsing anything when every lock of a board reads open (polarity), and refuses to write when a named door does not read shut', async () => {
    const inverted = await simulator('--boards', '1', '--tcp', '0', '--inverted-hook');
    const cabinet = path.join(mkdtempSync(path.join(tmpdir(), 'mapinv-')), 'cabinet.json');
    try {
      const tcp = inverted.where.replace('tcp://', '');
      const map = await runMap(['--tcp', tcp, '--boards', '1', '--cabinet', cabinet], () => {
        throw new Error('map asked something');
      });
      expect(map.code).toBe(1);
      expect(map.stdout).toMatch(
        /^every lock of board 0 reads open before anything was pulsed: .*hook polarity .*with --inverted-hook/,
      );
      expect(existsSync(cabinet)).toBe(false);
      const status = await lockctl('status', '--tcp', tcp, '--boards', '1');
      expect(status.code).toBe(1);
      expect(status.stdout.trim().split('\n').at(-1)).toMatch(
        /^every door of board 0 reads open: if they are shut, the hook polarity is the other way .*--inverted-hook/,
      );
      const right = await lockctl('status', '--tcp', tcp, '--boards', '1', '--inverted-hook');
      expect(right.code).toBe(0);
    } finally {
      inverted.child.kill();
    }
    // Doors that stay open after mapping (they do not shut by themselves here).
    const open = await simulator('--boards', '1', '--tcp', '0');
    try {
      const tcp = open.where.replace('tcp://', '');
      const map = await runMap(['--tcp', tcp, '--boards', '1', '--cabinet', cabinet], (prompt) =>
        prompt.kind === 'pulsed' ? (prompt.lock <= 2 ? String(prompt.lock) : '') : '',
      );
      expect(map.code).toBe(1);
      expect(map.stdout).toMatch(
        /^none of the 2 doors reads shut: shut them .* the hook polarity .*Nothing written\./,
      );
      expect(existsSync(cabinet)).toBe(false);
      expect(existsSync(`${cabinet}.progress.json`)).toBe(true);
    } finally {
      open.child.kill();
    }
  });
});

describe('lockctl helps a technician who meets a silent bus, a cabinet file and an unplug', () => {
  it('says which baud rate it tried and to run probe when no board answers', async () => {
    for (const command of [
      ['scan'],
      ['status', '--boards', '2'],
      ['open', '--boards', '2', '--position', '1'],
    ]) {
      const r = await lockctl(
        command[0]!,
        '--port',
        sim.where,
        '--baud',
        '9600',
        ...command.slice(1),
      );
      expect(r.code, command.join(' ')).toBe(1);
      expect(r.stdout, command.join(' ')).toContain(
        `no board answered at 9600 baud: if the boards are set to another rate, lockctl probe --port ${sim.where} finds it`,
      );
    }
    const status = await lockctl('status', '--port', sim.where, '--baud', '9600');
    expect(status.stderr).toMatch(/no board answered at 9600 baud: .*lockctl probe/);
  });

  it('refuses --boards or --inverted-hook beside --cabinet, as the README says', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cab-')), 'cabinet.json');
    writeFileSync(file, JSON.stringify({ boards: [0, 1] }));
    for (const extra of [['--boards', '3'], ['--inverted-hook']]) {
      const r = await lockctl(
        ...['open', '--port', sim.where, '--cabinet', file, '--position', '1', ...extra],
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the cabinet file gives the boards and the hook polarity/);
    }
  });

  it('monitor waits for an unplugged adapter and resumes when it is back', async () => {
    const cabinet = new SimulatedCabinet({ boards: 1 });
    afterThisTest(() => cabinet.stop());
    const pty = await servePty(cabinet);
    afterThisTest(() => pty.close());
    const monitor = spawn(
      process.execPath,
      [BIN, 'monitor', '--port', pty.path, '--boards', '1', '--interval', '50', '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = once(monitor, 'exit');
    afterThisTest(async () => {
      monitor.kill();
      await exited;
    });
    let out = '';
    let err = '';
    monitor.stdout.on('data', (c: Buffer) => (out += c.toString()));
    monitor.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const received = () => out.split('\n').filter((l) => l.includes('"rx"')).length;
    await until(() => Promise.resolve(received() >= 2 || undefined));
    await pty.unplug();
    await until(() =>
      Promise.resolve(/waiting for the adapter or gateway to come back/.test(err) || undefined),
    );
    expect(monitor.exitCode).toBeNull();
    const before = received();
    await pty.replug();
    await until(() => Promise.resolve(received() >= before + 2 || undefined), 20_000);
    expect(err).toMatch(/the line is back: monitoring again/);
    expect(monitor.exitCode).toBeNull();
  });
});
