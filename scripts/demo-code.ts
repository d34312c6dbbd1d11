/**
 * `pnpm demo-code`: the demo admin's authenticator code now, for a newcomer signing in to
 * the operator console without an authenticator app (demo only).
 */
import { existsSync, readFileSync } from 'node:fs';
import { DEMO_FILE, totpNow, type Demo } from './demo';

if (!existsSync(DEMO_FILE)) {
  process.stderr.write('error: no demo yet: run `pnpm start` first\n');
  process.exit(1);
}
const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as Demo;
if (!demo.operator) {
  process.stderr.write(
    'error: this demo has no console operator yet: run `pnpm start` once more\n',
  );
  process.exit(1);
}
const left = 30 - (Math.floor(Date.now() / 1000) % 30);
process.stdout.write(
  `${totpNow(demo.operator.totpSecret)}   (${demo.operator.email}; valid ${left} s more)\n`,
);
