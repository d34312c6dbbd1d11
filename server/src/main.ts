/** `pnpm serve`: the server alone. A failure to start is one sentence and exit status 1. */
import { startServer, type RunningServer } from './server';
import { startupMessage } from './startupErrors';

let server: RunningServer;
try {
  server = await startServer();
} catch (error) {
  process.stderr.write(`error: ${startupMessage(error, process.env.DATABASE_URL || undefined)}\n`);
  if (/debug|trace/.test(process.env.LOG_LEVEL ?? '')) console.error(error);
  process.exit(1);
}
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
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
