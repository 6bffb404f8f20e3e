// One error class per `error.code` of the API (risk-data-api.md "Errors"), so that callers branch with
// `instanceof`. Each carries the wire fields of the error body (`code`, `message`, `request_id`, `details`)
// and the HTTP `status`.
import type { Schemas } from './types.js';

export type ErrorCode = Schemas['Error']['error']['code'];
/** A code of the document, `unexpected_response`, or a code newer than this SDK. */
export type ApiErrorCode = ErrorCode | 'unexpected_response' | (string & {});

/** The base of every error the SDK throws. */
export class TprmError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No response: the connection failed, was reset, or the attempt timed out (after the retries allowed). */
export class TprmConnectionError extends TprmError {}

/** The caller's `signal` aborted the call; `cause` is the signal's reason. No retry follows. */
export class TprmAbortError extends TprmError {}

/** The API answered with an error status. */
export class TprmApiError extends TprmError {
  /** `error.code` of the body, or `unexpected_response` when the body is not the API's error shape. */
  readonly code: ApiErrorCode;
  /** The HTTP status. */
  readonly status: number;
  /** `error.request_id` (the `X-Request-Id` header when the body has none): quote it to support. */
  readonly request_id: string | undefined;
  /** `error.details`: free-form, for instance `required_scope`, `fields` or `existing_supplier_id`. */
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Headers;

  constructor(
    init: {
      code: ApiErrorCode;
      message: string;
      status: number;
      request_id: string | undefined;
      details: Record<string, unknown> | undefined;
    },
    headers: Headers,
  ) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.request_id = init.request_id;
    this.details = init.details;
    this.headers = headers;
  }
}

export class InvalidRequestError extends TprmApiError {}
export class InvalidApiKeyError extends TprmApiError {}
export class PlanUpgradeRequiredError extends TprmApiError {}
export class InsufficientScopeError extends TprmApiError {}
export class ResourceNotFoundError extends TprmApiError {}
export class ConflictError extends TprmApiError {}
export class ValidationFailedError extends TprmApiError {}
export class RateLimitExceededError extends TprmApiError {
  /** `Retry-After`: the seconds to wait before the next request is allowed. */
  get retryAfter(): number | undefined {
    return retryAfterSeconds(this.headers);
  }
}
export class InternalError extends TprmApiError {}
/** An error status whose body is not the API's error shape (a proxy's page, for instance). */
export class UnexpectedResponseError extends TprmApiError {}

// A Record over ErrorCode: a code added to the document fails the build until it has its class.
const ERROR_CLASSES: Record<ErrorCode, typeof TprmApiError> = {
  invalid_request: InvalidRequestError,
  invalid_api_key: InvalidApiKeyError,
  plan_upgrade_required: PlanUpgradeRequiredError,
  insufficient_scope: InsufficientScopeError,
  resource_not_found: ResourceNotFoundError,
  conflict: ConflictError,
  validation_failed: ValidationFailedError,
  rate_limit_exceeded: RateLimitExceededError,
  internal_error: InternalError,
};

/** `Retry-After` in seconds (the API sends an integer; an HTTP date is accepted too). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** The error an error response stands for, read from its body. */
export async function errorFromResponse(response: Response): Promise<TprmApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: Partial<Schemas['Error']['error']> } | undefined)?.error;
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const ErrorClass = Object.hasOwn(ERROR_CLASSES, error.code) ? ERROR_CLASSES[error.code] : TprmApiError;
    return new ErrorClass(
      {
        code: error.code,
        message: error.message,
        status: response.status,
        request_id: error.request_id ?? headerRequestId,
        details: error.details,
      },
      response.headers,
    );
  }
  return new UnexpectedResponseError(
    {
      code: 'unexpected_response',
      message: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
      status: response.status,
      request_id: headerRequestId,
      details: undefined,
    },
    response.headers,
  );
}
