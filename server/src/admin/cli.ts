/** `pnpm admin …`: the operator CLI's process entry; the work is in run.ts. */
import { runAdmin } from './run';

const code = await runAdmin(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exitCode = code;
