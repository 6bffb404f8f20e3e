// GET /assessments, POST /assessments, GET /assessments/{id}, GET /assessments/{id}/gaps: the contracts
// (handlers: routes.ts; risk-data-api.md "Endpoints › Assessments"; decisions 6, 11, 26, 38, 40).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { conflict } from '../../contract/errors.js';
import { getOperation, listOperation, updatedSinceParam } from '../../contract/list.js';
import { apiKey, operation } from '../../contract/operation.js';
import { collectionSchema } from '../../schema/collection.js';
import { StringEnum } from '../../schema/fields.js';
import { Assessment, AssessmentCreate, Gap, GapSeverity } from './schema.js';

const TAG = 'Assessments';

export const listAssessments = listOperation({
  id: 'listAssessments',
  path: '/assessments',
  scope: 'assessments:read',
  tag: TAG,
  summary: 'List assessments, newest first',
  currency: true,
  resource: Assessment,
  fieldFilters: ['supplier_id', 'status', 'decision', 'assessment_type'],
  filters: {
    expires_before: Type.String({
      format: 'date-time',
      description: 'Assessments whose validity ends (`expires_at`) strictly before this instant.',
    }),
  },
});

export const getAssessment = getOperation({
  id: 'getAssessment',
  path: '/assessments/:id',
  scope: 'assessments:read',
  tag: TAG,
  summary: 'Get one assessment',
  resource: Assessment,
  noun: 'assessment',
});

export const quotaExceeded = (quota: number) =>
  conflict('The workspace has used its assessment quota.', {
    reason: 'assessment_quota_exceeded',
    assessment_quota: quota,
  });

export const createAssessment = operation({
  id: 'createAssessment',
  method: 'POST',
  path: '/assessments',
  auth: apiKey('assessments:write'),
  tag: TAG,
  summary: 'Create an assessment in draft',
  description:
    'The assessment starts in `draft` and the supplier is not invited. Its `vendor_profile` is the ' +
    "supplier's. Supplier assessments count against the workspace's assessment quota; self assessments do not.",
  body: AssessmentCreate,
  idempotent: true,
  responses: {
    201: { description: 'The created assessment.', schema: Assessment.schema },
    409: {
      description:
        'The workspace has used its assessment quota (`details.reason` `assessment_quota_exceeded`), or the ' +
        'Idempotency-Key is in use or was used with another body.',
      errors: [quotaExceeded(500)],
    },
  },
});

export const listAssessmentGaps = operation({
  id: 'listAssessmentGaps',
  method: 'GET',
  path: '/assessments/:id/gaps',
  auth: apiKey('assessments:read'),
  tag: TAG,
  summary: 'Every gap of one assessment, by control code',
  description:
    'All gaps in one response, ordered by `control_code` in plain byte order; never paged (`has_more` ' +
    'false). `evidence` is present only for keys with the evidence:read scope. Takes only `severity` and ' +
    '`updated_since`.',
  query: Type.Object(
    { severity: Type.Optional(StringEnum(GapSeverity)), updated_since: updatedSinceParam(Gap) },
    // Decision 40: not cursor-paged, so `cursor` and `limit` are unknown parameters (400).
    { additionalProperties: false },
  ),
  responses: {
    200: {
      description: 'The gaps of the assessment.',
      schema: collectionSchema(Gap.schema),
    },
  },
});

/** In the specification's order. */
export const assessmentsOperations = [listAssessments, createAssessment, getAssessment, listAssessmentGaps];
