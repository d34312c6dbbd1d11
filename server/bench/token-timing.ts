/**
 * Does the time of a refused device token tell whether it exists, or whether it was used
 * lately? Sends the same request with a fresh unknown token (a new one each time: never
 * seen by the server), one unknown token used over and over, a revoked, a disabled and an
 * offline terminal's token, interleaved one by one so machine noise falls on every kind
 * alike, and prints each kind's latency distribution, then the fresh token's median
 * against the offline one's (issue 22's check: within 12 %).
 *
 *   TIMING_SAMPLES=2000 pnpm --filter @locker/server exec tsx bench/token-timing.ts
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import {
  createStation,
  createTerminal,
  revokeTerminal,
  setTerminalStatus,
} from '../src/admin/commands';
import { benchDatabase, benchServer } from './harness';

const SAMPLES = Number(process.env.TIMING_SAMPLES ?? 2000);

function timed(agent: http.Agent, url: URL, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/terminal/v1/cabinet',
        headers: { authorization: `Bearer ${token}` },
        agent,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const at = (sorted: number[], p: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 1000) / 1000;

async function main() {
  const db = await benchDatabase('locker_bench_token_timing');
  const { sql } = db;
  const station = await createStation(sql, { code: 'TT', name: 'Timing', doors: '1:S' });
  const revoked = await createTerminal(sql, station.code);
  await revokeTerminal(sql, revoked.id);
  const disabled = await createTerminal(sql, station.code);
  await setTerminalStatus(sql, disabled.id, 'disabled');
  const offline = await createTerminal(sql, station.code);
  await setTerminalStatus(sql, offline.id, 'offline');
  const server = await benchServer(db.url);
  const unknown = `tdev_${randomBytes(24).toString('base64url')}`;
  const kinds: Record<string, () => string> = {
    fresh: () => `tdev_${randomBytes(24).toString('base64url')}`,
    unknown: () => unknown,
    revoked: () => revoked.token,
    disabled: () => disabled.token,
    offline: () => offline.token,
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(server.url);
  try {
    const samples: Record<string, number[]> = {};
    for (const kind of Object.keys(kinds)) samples[kind] = [];
    for (let i = 0; i < 200; i++)
      for (const token of Object.values(kinds)) await timed(agent, url, token());
    for (let i = 0; i < SAMPLES; i++) {
      for (const [kind, token] of Object.entries(kinds))
        samples[kind]!.push(await timed(agent, url, token()));
    }
    const median = (kind: string) =>
      at(
        [...samples[kind]!].sort((a, b) => a - b),
        0.5,
      );
    const apart = Math.abs(median('fresh') - median('offline')) / median('offline');
    console.table(
      Object.entries(samples).map(([kind, values]) => {
        const sorted = values.sort((a, b) => a - b);
        return {
          token: kind,
          n: sorted.length,
          'p10 ms': at(sorted, 0.1),
          'p50 ms': at(sorted, 0.5),
          'p90 ms': at(sorted, 0.9),
        };
      }),
    );
    console.log(
      `fresh unknown token p50 ${median('fresh')} ms vs known offline token p50 ${median('offline')} ms: ` +
        `${(apart * 100).toFixed(1)} % apart (${apart <= 0.12 ? 'within' : 'beyond'} 12 %)`,
    );
  } finally {
    agent.destroy();
    await server.stop();
    await db.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
