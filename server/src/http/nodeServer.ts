import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ProblemCode } from '@locker/shared';
import type { Logger } from '../logger';
import { ProblemError } from './problem';

/**
 * How long Node waits on a client, chosen rather than inherited (docs/decisions.md):
 * - headers: 10 s to send the request line and headers;
 * - request: 20 s for the whole request, body included (bodies are at most 64 kB, so a
 *   client slower than ~3 kB/s is holding a connection open, not sending a request);
 * - keep-alive: 65 s idle between requests, longer than a kiosk's 15 s and 60 s polls;
 * - the check runs every second, so a timeout ends within a second of being due.
 */
export const HTTP_TIMEOUTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 20_000,
  keepAliveTimeoutMs: 65_000,
  checkIntervalMs: 1_000,
};
export type HttpTimeouts = typeof HTTP_TIMEOUTS;

/** Node's own refusals by its error code; anything else it refuses is a malformed request. */
const NODE_REFUSALS: Record<string, ProblemCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'payload_too_large',
};

function codeFor(error: NodeJS.ErrnoException): ProblemCode {
  return (error.code && NODE_REFUSALS[error.code]) || 'bad_request';
}

/**
 * Answers what Node refuses before the application sees it (malformed request, headers
 * too large, too slow) as problem details with a correlation id, like every other
 * answer, instead of Node's bare `400 Bad Request`; the connection is closed after.
 */
function answerClientError(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const correlationId = randomUUID();
    const problem = new ProblemError(codeFor(error));
    const body = JSON.stringify(problem.body(correlationId));
    logger.info(
      { correlation_id: correlationId, status: problem.status, reason: error.code },
      'request refused by the HTTP parser',
    );
    socket.end(
      `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Correlation-ID: ${correlationId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}

/** The HTTP server of both interfaces, with its limits set deliberately. */
export function createHttpServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
  logger: Logger,
  timeouts: HttpTimeouts = HTTP_TIMEOUTS,
): http.Server {
  const server = http.createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      // Node's default, stated: 16 kB of headers; more is 431.
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => void handler(req, res),
  );
  server.on('clientError', answerClientError(logger));
  return server;
}
