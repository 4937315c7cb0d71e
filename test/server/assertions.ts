/**
 * Assertions and setup shared by the server's integration suites: bodies checked against the
 * served OpenAPI document, error replies, polling, and one server over the shared engine.
 * @module
 */
import type http from 'node:http';
import Ajv2020 from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import type { Engine } from '../../src/engine/contract.js';
import { openApiDocument, type ServerHandle } from '../../src/server/index.js';
import { sharedEngine, start } from './helpers.js';

// OpenAPI schemas, used to check real bodies against the served description.
const document = openApiDocument() as Record<string, any>;
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...document, $id: 'openapi.json' });

/** Fails the test unless `value` matches the named schema of the OpenAPI document. */
export function conforms(schema: string, value: unknown): void {
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema}`);
  const ok = validate(value);
  expect(ok, `${schema}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

/** An error reply: status, JSON content type, error code, request id echoed, and the schema. */
export function expectError(reply: { status: number; headers: http.IncomingHttpHeaders; json: any }, status: number, code: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.json?.error?.code, JSON.stringify(reply.json)).toBe(code);
  expect(reply.json.error.request_id).toBe(reply.headers['x-service-request-id']);
  conforms('ErrorResponse', reply.json);
}

/** Polls `check` until true (at most 10 s). */
export async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The shared engine, a server on it (127.0.0.1, port 0) and the id `evalmodel-latest` resolves to. */
export async function openShared(): Promise<{ engine: Engine; server: ServerHandle; versionedId: string }> {
  const engine = await sharedEngine();
  return { engine, server: await start(), versionedId: engine.resolveModel('evalmodel-latest') };
}

export async function closeShared(shared: { engine?: Engine; server?: ServerHandle }): Promise<void> {
  await shared.server?.close();
  await shared.engine?.close();
}
