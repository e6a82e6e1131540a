/**
 * OpenAPI 3.1 documents built from the valibot schemas that validate the wire: each operation
 * names its parameters, request body and every status it answers, each with the schema of its
 * body (JSON Schema draft 2020-12, converted by `@valibot/to-json-schema`; refinements such as
 * `v.check` are not expressible and are left out). Answers the document does not list for an
 * operation (a status, a path, a method) are outside the contract; `x-unmatched` says what the
 * service answers then (404 unknown path, 405 known path with another method).
 *
 * @example
 *   const doc = openApiDocument({ title: 'x', version: '1', description: '' }, [
 *     { method: 'get', path: '/price', summary: 'Price', responses: { 200: json('price object', PriceObjectSchema) } },
 *   ]);
 */
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { GenericSchema } from 'valibot';
import { defineRoute, type HttpMethod, type ParameterSpec, type ResponseSpec, type RouteSpec } from '../http/route-spec.ts';

/** An operation of the document: a route's spec (server/http/route-spec.ts). */
export type OperationSpec = RouteSpec;
export type { HttpMethod, ParameterSpec, ResponseSpec };

/** A JSON Schema object (draft 2020-12). */
export type SchemaObject = JsonSchema;

/** A response object of the document. */
export interface ResponseObject {
  description: string;
  headers?: Record<string, { schema: SchemaObject }>;
  content?: Record<string, { schema: SchemaObject }>;
}

/** An operation object of the document. */
export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required: boolean; description: string; schema: SchemaObject }>;
  requestBody?: { description: string; required: boolean; content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, ResponseObject>;
  [extension: `x-${string}`]: unknown;
}

/** What the service answers outside the listed operations. */
export interface Unmatched {
  /** unknown path */
  unknownPath: { status: number; schema: SchemaObject };
  /** known path, method not listed */
  methodNotAllowed: { status: number; schema: SchemaObject };
}

/** An OpenAPI 3.1 document. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  jsonSchemaDialect: string;
  paths: Record<string, Partial<Record<HttpMethod, OperationObject>>>;
  components: { schemas: Record<string, SchemaObject> };
  'x-unmatched': Unmatched;
  [extension: `x-${string}`]: unknown;
}

/** Converts a valibot schema to JSON Schema (draft 2020-12), without the `$schema` key. */
export function jsonSchemaOf(schema: GenericSchema): SchemaObject {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore', typeMode: 'output' });
  return rest;
}

/** A JSON response (its schema's type kept for the route's handler). */
export const json = <S extends GenericSchema>(description: string, schema: S, headers?: readonly string[]): ResponseSpec<S> => ({
  description,
  schema,
  ...(headers ? { headers } : {}),
});

const operationId = (method: string, path: string): string =>
  method + path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''));

function responseObject(r: ResponseSpec): ResponseObject {
  const out: ResponseObject = { description: r.description };
  if (r.headers) out.headers = Object.fromEntries(r.headers.map((h) => [h, { schema: { type: 'string' } }]));
  if (r.schema) out.content = { [r.contentType ?? 'application/json']: { schema: jsonSchemaOf(r.schema) } };
  return out;
}

function operationObject(op: OperationSpec): OperationObject {
  const out: OperationObject = {
    operationId: operationId(op.method, op.path),
    summary: op.summary,
    responses: Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status, responseObject(r)])),
    ...(op.extensions ?? {}),
  };
  if (op.description) out.description = op.description;
  if (op.tags) out.tags = [...op.tags];
  if (op.parameters) {
    out.parameters = op.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.in === 'path' || (p.required ?? false),
      description: p.description,
      schema: jsonSchemaOf(p.schema),
    }));
  }
  if (op.requestBody) {
    out.requestBody = {
      description: op.requestBody.description,
      required: op.requestBody.required ?? true,
      content: { [op.requestBody.contentType ?? 'application/json']: { schema: jsonSchemaOf(op.requestBody.schema) } },
    };
  }
  return out;
}

/** What a document is built from besides its operations. */
export interface DocumentParts {
  info: { title: string; version: string; description: string };
  operations: readonly OperationSpec[];
  /** named schemas (e.g. WebSocket events) for components.schemas */
  schemas?: Readonly<Record<string, GenericSchema>>;
  unmatched: { unknownPath: { status: number; schema: GenericSchema }; methodNotAllowed: { status: number; schema: GenericSchema } };
  extensions?: Readonly<Record<`x-${string}`, unknown>>;
}

/** Builds the document; throws when one method of one path is given twice. */
export function openApiDocument(parts: DocumentParts): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of parts.operations) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`operation ${op.method.toUpperCase()} ${op.path} declared twice`);
    item[op.method] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: parts.info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: { schemas: Object.fromEntries(Object.entries(parts.schemas ?? {}).map(([name, s]) => [name, jsonSchemaOf(s)])) },
    'x-unmatched': {
      unknownPath: { status: parts.unmatched.unknownPath.status, schema: jsonSchemaOf(parts.unmatched.unknownPath.schema) },
      methodNotAllowed: { status: parts.unmatched.methodNotAllowed.status, schema: jsonSchemaOf(parts.unmatched.methodNotAllowed.schema) },
    },
    ...(parts.extensions ?? {}),
  };
}

/** `GET /openapi.json`: a surface's own document (each surface builds it from the routes its router registered). */
export const openApiRoute = defineRoute({
  method: 'get',
  path: '/openapi.json',
  summary: 'This document',
  tags: ['operations'],
  responses: { 200: json('OpenAPI 3.1 document', v.object({ openapi: v.string() })) },
});
