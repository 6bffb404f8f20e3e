// @tprm/client: a typed client of the tprm-api third-party risk data API, with no runtime dependency.
export {
  type AuditChainBreak,
  type AuditChainVerification,
  type AuditLogEntry,
  auditCanonicalJson,
  auditEntryCanonicalText,
  auditEntryHash,
  canonicalJson,
  type HashedAuditEntry,
  type VerifyAuditChainOptions,
  verifyAuditChain,
} from './audit-chain.js';
export { createClient, type TprmClient } from './client.js';
export {
  type ApiErrorCode,
  ConflictError,
  type ErrorCode,
  InsufficientScopeError,
  InternalError,
  InvalidApiKeyError,
  InvalidRequestError,
  PlanUpgradeRequiredError,
  RateLimitExceededError,
  ResourceNotFoundError,
  TprmAbortError,
  TprmApiError,
  TprmConnectionError,
  TprmError,
  UnexpectedResponseError,
  ValidationFailedError,
} from './errors.js';
export { Export } from './export.js';
export type { components, operations, paths } from './generated/openapi.js';
export { type ItemOf, Paginated } from './pagination.js';
export type { SignatureCheck } from './signing.js';
export {
  type ClientEventListener,
  type ClientEventName,
  type ClientEvents,
  type ClientOptions,
  type LastResponse,
  type PostRequestOptions,
  type RateLimitInfo,
  type RequestEvent,
  type RequestOptions,
  type ResponseEvent,
  type RetryOptions,
  USER_AGENT,
  type WithResponse,
} from './transport.js';
export type { Body, Collection, Query, Result, Schemas } from './types.js';
export { SDK_VERSION } from './version.js';
export {
  type SignatureFailure,
  type WebhookEvent,
  type WebhookEventType,
  WebhookSignatureError,
  webhooks,
} from './webhooks.js';
export type { AsyncSignatureCheck } from './webhooks-web.js';
