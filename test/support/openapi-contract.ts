/**
 * Checks HTTP answers against the OpenAPI document the service serves at `/openapi.json`: the
 * operation (path template and method) must be listed, the status must be one of its responses,
 * and the content type and body must match that response's schema (JSON Schema 2020-12, Ajv).
 * A path the document does not list must answer its `x-unmatched.unknownPath` status (404), a
 * method it does not list on a known path `x-unmatched.methodNotAllowed` (405). Black-box clients
 * call `checkAnswer` on every response, so the document cannot drift from what the service does.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument, OperationObject, SchemaObject } from '../../server/openapi/document.ts';

/** One answer as a client saw it. */
export interface SeenAnswer {
  method: string;
  /** path with query, as requested */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

const documents = new Map<string, Promise<OpenApiDocument>>();
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new WeakMap<object, ValidateFunction>();

/** The document served at `${base}/openapi.json` (fetched once per base). */
export function documentAt(base: string): Promise<OpenApiDocument> {
  let doc = documents.get(base);
  if (!doc) {
    doc = fetch(`${base}/openapi.json`).then(async (res) => {
      if (res.status !== 200) throw new Error(`${base}/openapi.json answered ${res.status}`);
      return (await res.json()) as OpenApiDocument;
    });
    doc.catch(() => documents.delete(base));
    documents.set(base, doc);
  }
  return doc;
}

const segmentsOf = (path: string): string[] => path.split('?')[0]!.split('/');

/** The document's path template matching `path` (literal segments preferred over parameters). */
export function matchPath(doc: OpenApiDocument, path: string): string | undefined {
  const want = segmentsOf(path);
  let best: { template: string; literals: number } | undefined;
  for (const template of Object.keys(doc.paths)) {
    const have = template.split('/');
    if (have.length !== want.length) continue;
    let literals = 0;
    const fits = have.every((seg, i) => {
      if (/^\{\w+\}$/.test(seg)) return (want[i] ?? '') !== '';
      literals++;
      return seg === want[i];
    });
    if (fits && (!best || literals > best.literals)) best = { template, literals };
  }
  return best?.template;
}

function validate(schema: SchemaObject, value: unknown, where: string): void {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  if (!fn(value)) throw new Error(`${where}: body does not match the document: ${ajv.errorsText(fn.errors)}; body ${JSON.stringify(value).slice(0, 500)}`);
}

const parse = (text: string, where: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${where}: body is not JSON: ${text.slice(0, 200)}`);
  }
};

/** Throws when `answer` is not what `doc` says the service answers. */
export function checkAnswerAgainst(doc: OpenApiDocument, answer: SeenAnswer): void {
  const method = answer.method.toUpperCase();
  const where = `${method} ${answer.path} -> ${answer.status}`;
  if (method === 'OPTIONS') return; // CORS preflight, on every path
  const template = matchPath(doc, answer.path);
  const bodyless = method === 'HEAD' || answer.text.length === 0;
  if (template === undefined) {
    const u = doc['x-unmatched'].unknownPath;
    if (answer.status !== u.status) throw new Error(`${where}: the path is not in the OpenAPI document (an unknown path must answer ${u.status})`);
    if (!bodyless) validate(u.schema, parse(answer.text, where), where);
    return;
  }
  const operation: OperationObject | undefined = doc.paths[template]?.[(method === 'HEAD' ? 'get' : method.toLowerCase()) as 'get'];
  if (!operation) {
    const m = doc['x-unmatched'].methodNotAllowed;
    if (answer.status !== m.status) throw new Error(`${where}: ${method} ${template} is not in the OpenAPI document (it must answer ${m.status})`);
    if (!bodyless) validate(m.schema, parse(answer.text, where), where);
    return;
  }
  const response = operation.responses[String(answer.status)];
  if (!response)
    throw new Error(
      `${where}: status ${answer.status} is not documented for ${method} ${template} (documented: ${Object.keys(operation.responses).join(', ')})`,
    );
  if (!response.content) {
    if (!bodyless && answer.status !== 101) throw new Error(`${where}: the document says no body, got ${answer.text.slice(0, 200)}`);
    return;
  }
  const [mediaType, media] = Object.entries(response.content)[0]!;
  if (!(answer.contentType ?? '').toLowerCase().startsWith(mediaType))
    throw new Error(`${where}: content type ${answer.contentType} is not the documented ${mediaType}`);
  if (bodyless) return;
  validate(media.schema, mediaType === 'application/json' ? parse(answer.text, where) : answer.text, where);
}

/** Checks one answer against the document served by `documentBase`. */
export async function checkAnswer(documentBase: string, answer: SeenAnswer): Promise<void> {
  checkAnswerAgainst(await documentAt(documentBase), answer);
}
