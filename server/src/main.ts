/** `pnpm serve`: the server alone. A failure to start is one sentence and exit status 1. */
import { startServer, type RunningServer } from './server';
import { startupMessage } from './startupErrors';
import { warmLabelPool } from './merchant/labelPool';

let server: RunningServer;
try {
  // `--dev`: the public development PICKUP_CODE_SECRET is allowed (as LOCKER_DEV=1).
  server = await startServer(process.argv.includes('--dev') ? { development: true } : {});
} catch (error) {
  process.stderr.write(`error: ${startupMessage(error, process.env.DATABASE_URL || undefined)}\n`);
  if (/debug|trace/.test(process.env.LOG_LEVEL ?? '')) console.error(error);
  process.exit(1);
}
// The label thread starts now rather than with the first merchant's label.
warmLabelPool().catch((error: unknown) =>
  server.logger.warn({ err: error }, 'the label thread could not render its warm-up label'),
);
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    server.logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
