// The closed list of error codes of the specification, the one error shape and the errors operations declare;
// the HTTP status is derived from the code. Rendering them on a response is http/errors.ts.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { StringEnum } from '../schema/fields.js';

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_api_key: 401,
  plan_upgrade_required: 403,
  insufficient_scope: 403,
  resource_not_found: 404,
  conflict: 409,
  validation_failed: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error shape (risk-data-api.md "Errors"), as `errorBody` writes it. */
export const ErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: StringEnum(Object.keys(ERROR_STATUS) as ErrorCode[], 'Clients branch on it.'),
        message: Type.String({ description: 'Human text, may be reworded. Not to be parsed.' }),
        request_id: Type.String({
          format: 'uuid',
          description: 'The `X-Request-Id` of the response (of the first one, on an idempotent replay).',
        }),
        details: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form; see each error.' }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'Error' },
);

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what = 'resource') => new ApiError('resource_not_found', `No such ${what}.`);
export const invalidRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError('invalid_request', message, details);
export const validationFailed = (fields: Record<string, string>) =>
  new ApiError('validation_failed', 'One or more fields are invalid.', { fields });
export const conflict = (message: string, details: Record<string, unknown>) =>
  new ApiError('conflict', message, details);
/**
 * 409 for an id that several workspaces hold, when the request names none of them: the operator's actions
 * address a record by id alone, and an import may give records of two workspaces the same id.
 */
export const ambiguousId = (what: string) =>
  conflict(`Several workspaces hold a ${what} with this id: name one with workspace_id.`, {
    reason: 'ambiguous_id',
  });
export const internalError = () =>
  new ApiError('internal_error', 'Something went wrong on our side. Retry later.');

export function errorBody(error: ApiError, requestId: string): string {
  const body: Record<string, unknown> = { code: error.code, message: error.message, request_id: requestId };
  if (error.details) body.details = error.details;
  return JSON.stringify({ error: body });
}
