/**
 * One definition per route (docs/architecture.md#http-kit): a route spec names its method, path,
 * parameters, request body and every status it answers, each with the valibot schema of its body.
 * The router registers a route only from its spec, the OpenAPI document is built from the specs
 * the router registered, and a handler's answer is typed by the spec's responses: a 200 body the
 * 200 schema accepts, `respond(status, …)` only for a declared status.
 *
 * @example
 *   const price = defineRoute({
 *     method: 'get', path: '/price', summary: 'Latest price',
 *     responses: { 200: json('price object', PriceObjectSchema), 503: json('no tick yet', ErrorBodySchema) },
 *   });
 *   router.add(price, () => prices.current() ?? respond(503, { error: 'no tick yet' }));
 */
import type { GenericSchema, InferInput } from 'valibot';
import type { RawJson } from './reply.ts';
import type { JsonResponse, RouteRequest, TextResponse } from './route-types.ts';

/** HTTP methods a route can have. */
export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** One response of a route. */
export interface ResponseSpec<S extends GenericSchema = GenericSchema> {
  description: string;
  /** body schema; none for an empty body (204, 101) */
  schema?: S;
  /** [application/json] */
  contentType?: 'application/json' | 'text/plain' | 'image/svg+xml';
  /** response headers worth naming (e.g. Retry-After) */
  headers?: readonly string[];
}

/** A parameter of a route. */
export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description: string;
  schema: GenericSchema;
}

/** The responses of a route, by status. */
export type Responses = Readonly<Record<number, ResponseSpec>>;

/** A route: `path` uses OpenAPI templates (`/bets/{id}`), which the router turns into its own patterns. */
export interface RouteSpec<R extends Responses = Responses> {
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  tags?: readonly string[];
  parameters?: readonly ParameterSpec[];
  requestBody?: { description: string; schema: GenericSchema; required?: boolean; contentType?: 'application/json' | 'application/x-www-form-urlencoded' };
  responses: R;
  /** vendor extensions (`x-...`) of the operation */
  extensions?: Readonly<Record<`x-${string}`, unknown>>;
}

/** A route's spec, with its responses' types kept for its handler. */
export const defineRoute = <const R extends Responses>(spec: RouteSpec<R>): RouteSpec<R> => spec;

type BodyOf<X> = X extends ResponseSpec<infer S> ? InferInput<S> : never;
type Statuses<R> = Extract<keyof R, number>;

/** `respond(status, body)` for each declared status, with a body that status's schema accepts. */
type Responded<R> = { [N in Statuses<R>]: JsonResponse<N, BodyOf<R[N]>> }[Statuses<R>];

/**
 * What a handler of a route with responses `R` may answer: the 200 body its schema accepts (or the
 * same bytes already serialised), nothing for a declared 204, a declared status through `respond`
 * with a body its schema accepts, a text body for a declared non-JSON 200.
 */
export type AnswerOf<R extends Responses> =
  | (200 extends keyof R ? BodyOf<R[200]> | RawJson : never)
  | (204 extends keyof R ? undefined : never)
  | Responded<R>
  | (200 extends keyof R ? (R[200] extends { contentType: 'text/plain' | 'image/svg+xml' } ? TextResponse : never) : never);

/** A route handler: its answer (or a promise of it), or it throws an HttpError. */
export type RouteHandler<R extends Responses> = (req: RouteRequest) => AnswerOf<R> | PromiseLike<AnswerOf<R>>;

/** The router's pattern of an OpenAPI path template: `/bets/{id}` -> `/bets/:id`. */
export const patternOf = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** The statuses of a route that say it answered: 2xx and 101 (an upgrade). */
export const answersSomething = (spec: RouteSpec): boolean =>
  Object.keys(spec.responses).some((status) => {
    const n = Number(status);
    return n === 101 || (n >= 200 && n < 300);
  });
