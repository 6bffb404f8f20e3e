// Risks (risk-data-api.md "Risks", scope risks:read for all): GET /risks, GET /risks/{id}/treatments,
// GET /risk-scores, GET /risk-matrix, GET /risk-acceptances. The contracts (handlers: routes.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { listOperation, updatedSinceParam } from '../../contract/list.js';
import { apiKey, operation } from '../../contract/operation.js';
import { collectionSchema, LimitParam } from '../../schema/collection.js';
import { DateTime, StringEnum } from '../../schema/fields.js';
import {
  Risk,
  RiskAcceptance,
  RiskAcceptanceStatus,
  RiskBand,
  RiskMatrixRow,
  RiskMatrixScope,
  RiskScores,
  RiskTreatment,
} from './schema.js';

const TAG = 'Risks';
const SCOPE = 'risks:read';

export const listRisks = listOperation({
  id: 'listRisks',
  path: '/risks',
  scope: SCOPE,
  tag: TAG,
  summary: 'List risks, newest first',
  description: '`score` (likelihood × impact) and `band` are computed when read.',
  currency: true,
  resource: Risk,
  fieldFilters: ['risk_type', 'status', 'category', 'source_domain', 'supplier_id'],
});

export const listRiskTreatments = operation({
  id: 'listRiskTreatments',
  method: 'GET',
  path: '/risks/:id/treatments',
  auth: apiKey(SCOPE),
  tag: TAG,
  summary: 'List every treatment of a risk, newest first, in one response',
  description:
    // Decision 40: an unpaged collection refuses the paging parameters.
    'Not paged: takes only `updated_since`, so `limit` and `cursor` are rejected with 400. ' +
    'A risk without treatments gives an empty `data` with `meta.feature_status` `not_configured`; a risk ' +
    'whose treatments all changed before `updated_since` gives an empty `data` that is `available`.',
  // Decision 40: not paged, so `cursor` and `limit` are unknown parameters (400).
  query: Type.Object({ updated_since: updatedSinceParam(RiskTreatment) }, { additionalProperties: false }),
  responses: {
    200: {
      description: 'The treatments.',
      schema: collectionSchema(RiskTreatment.schema, { currency: true }),
    },
  },
});

export const getRiskScores = operation({
  id: 'getRiskScores',
  method: 'GET',
  path: '/risk-scores',
  auth: apiKey(SCOPE),
  tag: TAG,
  summary: "The workspace's current risk score and its history",
  description:
    // Decisions 36 (the window's bounds are inclusive) and 40 (no cursor on an unpaged collection).
    '`data` holds exactly one element. `history` holds the points with `from` ≤ at ≤ `to`; when more fall ' +
    'in the window than `limit`, the most recent `limit` points, oldest first. Not paged: `cursor` is ' +
    'rejected, `has_more` is false and `next_cursor` null. `from` after `to` is a 400. ' +
    '`current` is the latest point at or before now, whatever the window; null when there is none, with ' +
    '`meta.feature_status` `not_configured`.',
  query: Type.Object(
    {
      limit: Type.Optional(LimitParam),
      from: Type.Optional({ ...DateTime, description: 'Inclusive. Default: 90 days before `to`.' }),
      to: Type.Optional({ ...DateTime, description: 'Inclusive. Default: now.' }),
    },
    { additionalProperties: false },
  ),
  responses: { 200: { description: 'The score series.', schema: collectionSchema(RiskScores) } },
});

export const getRiskMatrix = operation({
  id: 'getRiskMatrix',
  method: 'GET',
  path: '/risk-matrix',
  auth: apiKey(SCOPE),
  tag: TAG,
  summary: 'Risk matrix rows of the open risks, highest score first',
  description:
    // Decisions 37 (the scope of a row), 15 (limit per scope) and 40 (no cursor), and risk-data-api.md "Limits".
    'One row per risk whose status is not `closed`; `scope` is `cyber` when its `source_domain` is `cyber`, ' +
    'else `organizational`. Rows are ordered by `score` descending, then `code`. `limit` applies per scope: ' +
    'without `scope`, up to `limit` rows of each scope, merged in that order. Not cursor-paged: `cursor` is ' +
    'rejected and `has_more` is always false; a scope that returns `limit` rows may have more, seen with a ' +
    'larger `limit` (at most 200).',
  query: Type.Object(
    {
      limit: Type.Optional({ ...LimitParam, description: 'Rows per scope, 1 to 200 (default 50).' }),
      scope: Type.Optional(StringEnum(RiskMatrixScope, 'Omit for both scopes.')),
      risk_band: Type.Optional(StringEnum(RiskBand)),
    },
    { additionalProperties: false },
  ),
  responses: {
    200: { description: 'The matrix rows.', schema: collectionSchema(RiskMatrixRow, { currency: true }) },
  },
});

export const listRiskAcceptances = listOperation({
  id: 'listRiskAcceptances',
  path: '/risk-acceptances',
  scope: SCOPE,
  tag: TAG,
  summary: 'List risk acceptance letters, newest first',
  description:
    '`valid_on=T` returns the letters in force at T: status `active` and `valid_from` ≤ T < `valid_until`.',
  currency: true,
  resource: RiskAcceptance,
  filters: {
    status: StringEnum(RiskAcceptanceStatus),
    valid_on: { ...DateTime, description: 'Letters in force at this instant.' },
  },
});

/** In the specification's order. */
export const risksOperations = [
  listRisks,
  listRiskTreatments,
  getRiskScores,
  getRiskMatrix,
  listRiskAcceptances,
];
