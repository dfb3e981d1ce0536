import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { httpGet, type HttpResult } from './http';

type Schema = Record<string, unknown>;
interface Operation {
  operationId?: string;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, Schema> };
}

/** An answer as the e2e tests see it (httpGet's result, or a raw request's). */
export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

/**
 * Every property an answer carries must be described: an object schema with `properties` and no
 * `additionalProperties` of its own is closed (free-form objects say `additionalProperties: true`).
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  if (out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

/**
 * The OpenAPI document an api serves (`/docs-json`), as a checker of real answers: the operation a request
 * is routed to (as the api routes: letter case and a trailing slash ignored), the answer's status declared
 * by it, and the body valid against the declared schema (ajv).
 */
export class ServedDocument {
  private readonly ajv: Ajv;
  private readonly routes: { pattern: RegExp; template: string; method: string; operation: Operation }[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    // OpenAPI 3.0 schemas: `nullable` is ajv's own keyword; `example` and the like are annotations
    this.ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(this.ajv);
    this.ajv.addSchema(closed({ components: document.components ?? {} }) as Schema, 'openapi.json');
    this.routes = Object.entries(document.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        template,
        method: method.toUpperCase(),
        operation,
        pattern: new RegExp(
          '^' +
            template
              .split(/\{[^}]+\}/)
              .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
              .join('[^/]+') +
            '/?$',
          'i',
        ),
      })),
    );
  }

  static async fetch(port: number): Promise<ServedDocument> {
    const res = await httpGet(port, '/docs-json');
    if (res.status !== 200) throw new Error(`no OpenAPI document at :${port}/docs-json (${res.status})`);
    return new ServedDocument(res.json() as OpenApiDocument);
  }

  /** The documented operation a request goes to, if any. */
  route(
    method: string,
    path: string,
  ): { template: string; method: string; operation: Operation } | undefined {
    const bare = path.split('?')[0];
    return this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(bare));
  }

  /** What is wrong with an answer to `method path`: [] when it conforms (or no operation covers the path). */
  problems(method: string, path: string, answer: Answer): string[] {
    const route = this.route(method, path);
    if (!route) return [];
    const declared = route.operation.responses[String(answer.status)];
    if (!declared) return [`status ${answer.status} is not declared by ${route.operation.operationId}`];
    const content = declared.content;
    if (!content) return answer.text === '' ? [] : [`status ${answer.status} declares no body, got one`];
    const type = String(answer.headers['content-type'] ?? '').split(';')[0];
    const media = content[type];
    if (!media?.schema) return [`content type "${type}" is not declared for status ${answer.status}`];
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [`the body is not JSON: ${answer.text.slice(0, 120)}`];
    }
    const key = `${route.template} ${route.method} ${answer.status} ${type}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(closed(this.localised(media.schema)) as Schema);
      this.validators.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`,
    );
  }

  /** `#/components/...` references, resolved against the document registered as `openapi.json`. */
  private localised(schema: Schema): Schema {
    return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'));
  }
}

const served = new Map<number, Promise<ServedDocument>>();

/** The document the api on `port` serves, fetched once. */
export function servedDocument(port: number): Promise<ServedDocument> {
  let doc = served.get(port);
  if (!doc) {
    doc = ServedDocument.fetch(port);
    doc.catch(() => served.delete(port));
    served.set(port, doc);
  }
  return doc;
}

/** Fails (throws) when an answer the api on `port` gave does not conform to the document it serves. */
export async function expectConforming(port: number, method: string, path: string, answer: Answer) {
  const problems = (await servedDocument(port)).problems(method, path, answer);
  if (problems.length > 0)
    throw new Error(
      `${method} ${path} answered ${answer.status}, not as the served OpenAPI document says:\n  ` +
        problems.join('\n  '),
    );
}

/** A GET to the api (as httpGet), its answer checked against the OpenAPI document the api serves. */
export async function apiGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const res = await httpGet(port, path, headers);
  await expectConforming(port, 'GET', path, res);
  return res;
}
