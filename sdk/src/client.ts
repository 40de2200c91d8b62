import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from "openapi-typescript-helpers";
import { errorFromResponse } from "./errors.js";
import type { paths } from "./generated/api.js";
import { defaultRetryOptions, realSleep, type RetryOptions } from "./retry.js";
import { TokenRenewer, type TokenPair, type TokenStore } from "./tokens.js";
import { createTransport, type FetchLike } from "./transport.js";

export interface PartnerApiOptions {
  /** The API's base URL, ending in `/api/v2` (e.g. `http://localhost:8787/api/v2`). */
  baseUrl: string;
  /** A fixed access token. Give `tokens` instead to have an expired token renewed. */
  token?: string;
  /** Your store of the token pair: an expired token is renewed once with its rotate key and the new pair stored. */
  tokens?: TokenStore;
  retry?: RetryOptions;
  /** The fetch to send with (default: the global fetch). */
  fetch?: FetchLike;
  /** Headers sent with every request, e.g. a User-Agent naming your integration. */
  headers?: Record<string, string>;
  /** How to wait between retries (default: a timer). Tests pass one that moves a fake clock. */
  sleep?: (ms: number, signal?: AbortSignal | null) => Promise<void>;
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** Every key of any member of a union. */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** The type of `K` in whichever members of a union have it. */
type ValueOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/** What an unknown key must be: no value of a JSON body or query is, and the compiler's error names the key. */
interface UnknownKey<K extends PropertyKey> {
  readonly "is not a parameter or field of this operation": K;
}

/**
 * `Given` with each key that `Shape` does not have typed `UnknownKey`, at every depth (objects,
 * arrays, unions, `null`); a free-form part of `Shape` (`custom_fields`) takes any key. The
 * call's own type is inferred from the argument, so TypeScript's excess property check, which
 * only looks at a literal against a fixed type, would let an unknown key through.
 */
type Exact<Shape, Given> = unknown extends Shape
  ? Given
  : Given extends object
    ? { [K in keyof Given]: K extends KeysOf<Shape> ? Exact<NonNullable<ValueOf<Shape, K>>, Given[K]> : UnknownKey<K> }
    : Given;

/**
 * The init of a typed call: `params` (path, query, headers) and `body` exactly as the
 * document lists them, so `{ params: { query: { tgas: "buyer" } } }` does not compile (the
 * API answers it 400 `Unknown query parameter: tgas`). Request options (`signal`, `headers`,
 * `parseAs`, ...) are openapi-fetch's and stay open.
 */
type ExactInit<Shape, Init> = Init & { [K in keyof Init & ("params" | "body")]: Exact<NonNullable<ValueOf<Shape, K>>, Init[K]> };
type Media = `${string}/${string}`;
/** The 2xx body of an operation. */
export type ResponseData<Path extends keyof paths, Method extends HttpMethod, Init = object> = paths[Path] extends Record<Method, object>
  ? NonNullable<FetchResponse<paths[Path][Method], Init, Media>["data"]>
  : never;

type ListBody = { pagination: { next_cursor?: string | null } };
/** The paths whose GET is a list (its answer carries `pagination`). */
export type ListPath = {
  [P in PathsWithMethod<paths, "get">]: ResponseData<P, "get"> extends ListBody ? P : never;
}[PathsWithMethod<paths, "get">];
/** The record type of a list: the element of its one array property (`contacts`, `events`, ...). */
export type ListItem<P extends ListPath> = {
  [K in keyof ResponseData<P, "get">]: ResponseData<P, "get">[K] extends ReadonlyArray<infer Item> ? Item : never;
}[Exclude<keyof ResponseData<P, "get">, "success" | "pagination">];

/**
 * The Partner API client. `get`, `post`, `put`, `patch` and `delete` take a path of the API's
 * document and its typed `params` and `body`, and resolve with the typed answer or throw a
 * PartnerApiError subclass. `list` walks a list to its end with `for await`. `raw` is the
 * underlying openapi-fetch client, for `{ data, error, response }` answers without throwing.
 */
export class PartnerApi {
  readonly raw: Client<paths, Media>;

  constructor(options: PartnerApiOptions) {
    if ((options.token === undefined) === (options.tokens === undefined)) {
      throw new TypeError("PartnerApi needs exactly one of `token` and `tokens`");
    }
    const retry = { ...defaultRetryOptions, ...options.retry };
    const sleep = options.sleep ?? realSleep;
    const send = options.fetch ?? ((request: Request) => fetch(request));
    const transport = (token: string | TokenRenewer | undefined, retryOn: "all" | "rate-limits" = "all") =>
      createTransport({ fetch: send, token, retry, retryOn, sleep, ...(options.headers ? { headers: options.headers } : {}) });

    // Renewal needs no token: its own client, so it never waits on the renewal it performs.
    // A renewal whose answer was lost has used the rotate key: it is not sent again.
    const renewal = createClient<paths, Media>({ baseUrl: options.baseUrl, fetch: transport(undefined, "rate-limits") });
    const renew = async (pair: TokenPair): Promise<TokenPair> => {
      const { data, error, response } = await renewal.POST("/auth/token/renew", { body: pair });
      // openapi-fetch has read the body already: its parsed error is the envelope.
      if (!data) throw errorFromResponse(response, error);
      return { access_token: data.access_token, rotate_key: data.rotate_key };
    };
    const token = options.tokens ? new TokenRenewer(options.tokens, renew) : options.token;

    this.raw = createClient<paths, Media>({ baseUrl: options.baseUrl, fetch: transport(token) });
  }

  #send(method: Uppercase<HttpMethod>, path: string, init: unknown): Promise<never> {
    return this.raw.request(method.toLowerCase() as never, path as never, init as never).then(({ data, error, response }) => {
      if (!response.ok) throw errorFromResponse(response, error);
      return data as never;
    });
  }

  get<P extends PathsWithMethod<paths, "get">, I extends MaybeOptionalInit<paths[P], "get">>(path: P, ...init: InitParam<ExactInit<MaybeOptionalInit<paths[P], "get">, I>>): Promise<ResponseData<P, "get", I>> {
    return this.#send("GET", path, init[0]);
  }
  post<P extends PathsWithMethod<paths, "post">, I extends MaybeOptionalInit<paths[P], "post">>(path: P, ...init: InitParam<ExactInit<MaybeOptionalInit<paths[P], "post">, I>>): Promise<ResponseData<P, "post", I>> {
    return this.#send("POST", path, init[0]);
  }
  put<P extends PathsWithMethod<paths, "put">, I extends MaybeOptionalInit<paths[P], "put">>(path: P, ...init: InitParam<ExactInit<MaybeOptionalInit<paths[P], "put">, I>>): Promise<ResponseData<P, "put", I>> {
    return this.#send("PUT", path, init[0]);
  }
  patch<P extends PathsWithMethod<paths, "patch">, I extends MaybeOptionalInit<paths[P], "patch">>(path: P, ...init: InitParam<ExactInit<MaybeOptionalInit<paths[P], "patch">, I>>): Promise<ResponseData<P, "patch", I>> {
    return this.#send("PATCH", path, init[0]);
  }
  delete<P extends PathsWithMethod<paths, "delete">, I extends MaybeOptionalInit<paths[P], "delete">>(path: P, ...init: InitParam<ExactInit<MaybeOptionalInit<paths[P], "delete">, I>>): Promise<ResponseData<P, "delete", I>> {
    return this.#send("DELETE", path, init[0]);
  }

  /**
   * Every record of a list, page after page by cursor, until `next_cursor` is null. Each
   * record that existed when the walk began comes exactly once (the API's paging rule).
   * `params.query` keeps its filters and `limit` (default 100 here, the largest page).
   */
  async *list<P extends ListPath, I extends MaybeOptionalInit<paths[P], "get">>(path: P, ...init: InitParam<ExactInit<MaybeOptionalInit<paths[P], "get">, I>>): AsyncGenerator<ListItem<P>, void, undefined> {
    const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let cursor: string | undefined;
    do {
      // After the first page the cursor carries the position: a `page` with it would be a 400.
      const query: Record<string, unknown> = { limit: 100, ...first.params?.query };
      if (cursor !== undefined) {
        delete query.page;
        query.cursor = cursor;
      }
      const page = (await this.#send("GET", path, { ...first, params: { ...first.params, query } })) as Record<string, unknown> & ListBody;
      const items = Object.entries(page).find(([name, value]) => name !== "pagination" && Array.isArray(value))?.[1] as ListItem<P>[] | undefined;
      yield* items ?? [];
      cursor = page.pagination.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }
}

export type { MediaType };
