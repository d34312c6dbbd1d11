import { io } from './io';
import { SimulatedCabinet } from '../simulator/cabinet';
import { servePty, serveTcp } from '../simulator/serve';
import type { Output } from './commands';
import { RANGES, UsageError, baud, int, list, str, type Values } from './options';

/** A simulated cabinet to practise on, with the faults a real bus has. */
export async function simulate(v: Values): Promise<Output> {
  const boards = int(v, 'boards', RANGES.boards, 1);
  const positions = boards * 16;
  const autoClose = str(v, 'auto-close');
  const positionsOf = (name: string) => list(v, name).map((p) => int(p, name, [1, positions]));
  const boardBaud = str(v, 'board-baud') === undefined ? undefined : baud(v, 19200, 'board-baud');
  const cabinet = new SimulatedCabinet({
    boards,
    hookBitMeansClosed: !v['inverted-hook'],
    ...(autoClose === undefined ? {} : { autoCloseMs: int(v, 'auto-close', [1, 3_600_000]) }),
    dropAfterUnlock: int(v, 'drop-after-unlock', [0, 100], 0),
    deadBoards: list(v, 'dead-board').map((b) => int(b, 'dead-board', [0, boards - 1])),
    jammed: positionsOf('jam'),
    propped: positionsOf('propped'),
    itemsAt: positionsOf('item'),
    unlockDelayS: int(v, 'unlock-delay', [0, 250], 0),
    powerCutAfterPulseMs: int(v, 'power-cut-after-pulse', [0, 60_000], 0),
    replyByteGapMs: int(v, 'byte-gap', [0, 1000], 0),
    boardBaud,
    doorsWired: int(v, 'doors-wired', [0, 16], 16),
    stateFile: str(v, 'state-file'),
  });
  // The line runs at --baud (default 19200); on a pseudo-terminal, boards answer only a
  // driver that opened it at their rate, as on a real line.
  const wire = { baudRate: baud(v), noise: Boolean(v.noise), honourDriverBaud: true };
  const tcp = str(v, 'tcp');
  if (tcp !== undefined && !/^\d+$/.test(tcp))
    throw new UsageError(`simulate --tcp takes a port number to listen on, not "${tcp}"`);
  const where = tcp
    ? `tcp://127.0.0.1:${(await serveTcp(cabinet, int(v, 'tcp', [0, 65535]), wire)).port}`
    : (await servePty(cabinet, wire)).path;
  cabinet.on('unlock', (p: number) => io().stderr.write(`unlock pulse: door ${p}\n`));
  // Ctrl-C or a kill ends the process normally, so the pseudo-terminal's socat goes too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
  const faults = [
    ...(v['drop-after-unlock']
      ? [`${str(v, 'drop-after-unlock')} replies lost after each unlock`]
      : []),
    ...list(v, 'dead-board').map((b) => `board ${b} dead`),
    ...list(v, 'jam').map((p) => `door ${p} jammed`),
    ...list(v, 'propped').map((p) => `door ${p} propped open`),
    ...(v['inverted-hook'] ? ['hook polarity inverted (normally-closed switches)'] : []),
    ...(v['unlock-delay'] ? [`delayed unlock ${str(v, 'unlock-delay')} s`] : []),
    ...(v['power-cut-after-pulse']
      ? [`power cut ${str(v, 'power-cut-after-pulse')} ms at every pulse`]
      : []),
    ...(v['byte-gap'] ? [`${str(v, 'byte-gap')} ms between reply bytes`] : []),
    ...(boardBaud ? [`boards at ${boardBaud} baud`] : []),
    ...(v['doors-wired'] ? [`only locks 1-${str(v, 'doors-wired')} have a door`] : []),
    ...(v.noise ? ['noise on the line'] : []),
  ];
  const json = { listening: where, boards, faults };
  io().stdout.write(
    (v.json
      ? JSON.stringify(json)
      : `simulated cabinet of ${boards} board(s) listening on ${where}${faults.length ? `, faults: ${faults.join('; ')}` : ''} (Ctrl-C to stop)`) +
      '\n',
  );
  await new Promise(() => {});
  return { ok: true, json, text: '' };
}
