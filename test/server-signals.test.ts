/**
 * Graceful shutdown on real signals: the server runs in a child process (the `serve` command
 * under vite-node), receives SIGTERM/SIGINT while a request is in flight, finishes that
 * request, refuses new connections, and exits 0. A second signal exits at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { call, parseRaw, sampleRequest } from './server/helpers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts the server in a child; resolves with its URL and a promise of its exit code. */
async function startChild(): Promise<{ child: ChildProcess; url: string; port: number; exited: Promise<number | null> }> {
  // The command's default is a pool of engine workers; they run the TypeScript sources through
  // the pool tests' loader (worker threads inherit the child's --import).
  const loader = new URL('./pool-ts-register.mjs', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', loader, 'node_modules/vite-node/vite-node.mjs', 'test/server/serve-child.ts', '--', '--port', '0', '--quiet', '--workers', '2'], {
    cwd: root,
    env: { ...process.env, EVALMODEL_API_KEYS: 'sig-key', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 60_000);
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { child, url, port: Number(new URL(url).port), exited };
}

/** Sends headers and part of a body; returns a function sending the rest and the raw reply. */
function partialRequest(port: number): Promise<{ finish: () => void; reply: Promise<string> }> {
  const body = JSON.stringify(sampleRequest('A request in flight during shutdown.'));
  const half = Math.floor(body.length / 2);
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sig-key\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
      );
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', () => undefined);
      const reply = new Promise<string>((r) => socket.on('close', () => r(Buffer.concat(chunks).toString('utf8'))));
      resolve({ finish: () => socket.write(body.slice(half)), reply });
    });
  });
}

describe('signals', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} drains the in-flight request, answers new connections 503 meanwhile and exits 0`, async () => {
      const { child, url, port, exited } = await startChild();
      expect((await call(url, '/v1/models', { headers: { authorization: 'Bearer sig-key' } })).status).toBe(200);
      const inFlight = await partialRequest(port);
      await new Promise((r) => setTimeout(r, 200));
      child.kill(signal);
      await new Promise((r) => setTimeout(r, 300));
      expect((await call(url, '/v1/models')).status).toBe(503);
      expect(child.exitCode).toBe(null);
      inFlight.finish();
      const reply = parseRaw(await inFlight.reply);
      expect(reply.status).toBe(200);
      expect(reply.headers.connection).toBe('close');
      expect(JSON.parse(reply.body).answers.unhappy.type).toBe('noul');
      expect(await exited).toBe(0);
    });
  }

  it('a second signal stops at once without draining', async () => {
    const { child, port, exited } = await startChild();
    const inFlight = await partialRequest(port);
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(await inFlight.reply).toBe('');
  });
});
