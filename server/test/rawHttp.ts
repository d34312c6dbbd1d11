import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection within the wait after answering. */
  closed: boolean;
}

/**
 * Sends bytes as they are (duplicate headers, bad request lines, bodies never sent) and
 * reads one HTTP/1.1 answer, then waits up to `closeWithinMs` for the server to close.
 */
export function rawRequest(
  port: number,
  head: string,
  options: { body?: Buffer | string; closeWithinMs?: number; answerWithinMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let answered: Omit<RawAnswer, 'closed'> | undefined;
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(answerTimer);
      socket.destroy();
      if (answered) resolve({ ...answered, closed });
      else reject(new Error(`no complete answer: ${data.toString('latin1').slice(0, 200)}`));
    };
    const answerTimer = setTimeout(finish, options.answerWithinMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (answered) return;
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (data.length < end + 4 + length) return;
      answered = {
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: data.subarray(end + 4, end + 4 + length).toString('utf8'),
      };
      setTimeout(finish, options.closeWithinMs ?? 2000);
    });
    socket.on('close', () => {
      closed = true;
      if (answered) finish();
    });
    socket.on('error', (error) => {
      if (!answered) reject(error);
    });
    socket.write(head);
    if (options.body !== undefined) socket.write(options.body);
  });
}
