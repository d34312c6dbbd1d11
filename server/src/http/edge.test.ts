import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { rawRequest, type RawAnswer } from '../../test/rawHttp';
import { useTestServer } from '../../test/harness';
import { createHttpServer, HTTP_TIMEOUTS } from './nodeServer';

const stack = useTestServer();
let port: number;
let token: string;
beforeAll(async () => {
  port = stack.server.port;
  token = (await stack.terminal((await stack.station('1:S')).code)).token;
});

function expectProblem(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  const body = JSON.parse(answer.body) as { code: string; correlation_id: string };
  expect(body.code).toBe(code);
  expect(answer.headers['x-correlation-id']).toBe(body.correlation_id);
  expect(body.correlation_id).toMatch(/^[A-Za-z0-9._-]{8,64}$/);
}

const post = (path: string, headers: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n${headers}\r\n`;

describe('bodies: limits before reading', () => {
  it('answers an announced oversized body 413 at once and closes, without reading it', async () => {
    const answer = await rawRequest(
      port,
      post(
        '/terminal/v1/pickup',
        `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n`,
      ),
    );
    expectProblem(answer, 413, 'payload_too_large');
    expect(answer.closed).toBe(true);
  });

  it('stops a chunked body at the limit with 413 and closes', async () => {
    const chunk = `{"code":"${'1'.repeat(70_000)}"}`;
    const answer = await rawRequest(
      port,
      post(
        '/terminal/v1/pickup',
        `Authorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n`,
      ),
      { body: `${chunk.length.toString(16)}\r\n${chunk}\r\n` },
    );
    expectProblem(answer, 413, 'payload_too_large');
    expect(answer.closed).toBe(true);
  });

  it('refuses an unauthenticated request without reading its body, and closes', async () => {
    const answer = await rawRequest(
      port,
      post('/terminal/v1/pickup', 'Authorization: Bearer nope\r\nContent-Length: 200000000\r\n'),
    );
    expectProblem(answer, 401, 'unauthorized');
    expect(answer.closed).toBe(true);
  });

  it('answers a GET that announces a body without reading it, and closes', async () => {
    const answer = await rawRequest(
      port,
      `GET /terminal/v1/cabinet HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 50000000\r\n\r\n`,
    );
    expect(answer.status).toBe(200);
    expect(answer.closed).toBe(true);
  });

  it('keeps a connection whose body was read open for the next request', async () => {
    const body = '{"code":"12345678"}';
    const answer = await rawRequest(
      port,
      post(
        '/terminal/v1/pickup',
        `Authorization: Bearer ${token}\r\nContent-Length: ${body.length}\r\n`,
      ),
      { body, closeWithinMs: 500 },
    );
    expectProblem(answer, 401, 'invalid_code');
    expect(answer.closed).toBe(false);
  });
});

describe("Node's own refusals as problem details", () => {
  it('answers a malformed request line 400 with a correlation id', async () => {
    expectProblem(await rawRequest(port, 'GARBAGE\r\n\r\n'), 400, 'bad_request');
  });

  it('answers headers over 16 kB 431 with a correlation id', async () => {
    const answer = await rawRequest(
      port,
      `GET /terminal/v1/cabinet HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectProblem(answer, 431, 'headers_too_large');
  });

  it('answers a body trickling slower than the request timeout 408 and closes', async () => {
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx) => {
      for await (const _ of ctx.req) void _;
      ctx.body = 'read';
    });
    const timeouts = {
      ...HTTP_TIMEOUTS,
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      checkIntervalMs: 100,
    };
    const server = createHttpServer(app.callback(), createLogger('silent'), timeouts);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const slow = (server.address() as AddressInfo).port;
      const answer = await rawRequest(slow, post('/', 'Content-Length: 100\r\n'), {
        body: '{"a":',
      });
      expectProblem(answer, 408, 'request_timeout');
      expect(answer.closed).toBe(true);
      const headersOnly = await rawRequest(slow, 'POST / HTTP/1.1\r\nHost: x\r\n');
      expectProblem(headersOnly, 408, 'request_timeout');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('Authorization header', () => {
  it('matches the scheme case-insensitively (RFC 9110)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const answer = await stack.anonymous.get('/terminal/v1/cabinet', {
        authorization: `${scheme} ${token}`,
      });
      expect(answer.status).toBe(200);
    }
  });

  it('refuses two Authorization headers, even when one is valid', async () => {
    for (const [first, second] of [
      [token, 'other'],
      ['other', token],
      [token, token],
    ]) {
      const answer = await rawRequest(
        port,
        `GET /terminal/v1/cabinet HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\n\r\n`,
        { closeWithinMs: 0 },
      );
      expectProblem(answer, 401, 'unauthorized');
    }
  });
});
