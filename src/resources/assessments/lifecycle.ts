// The assessments' lifecycle action on the management listener (management-api.md): the service's own
// transitions. Contract only; the handler is admin.ts.
import { operation, operator } from '../../contract/operation.js';
import { INVALID_FIELD, NO_RECORD, ok, REFUSED } from '../../contract/operator.js';
import { Assessment, AssessmentStatusChange } from './schema.js';

export const setAssessmentStatus = operation({
  id: 'setAssessmentStatus',
  method: 'POST',
  path: '/assessments/:id/status',
  auth: operator(),
  tag: 'Lifecycle',
  summary: "Move an assessment to a status (the service's own transitions)",
  description: 'Entering `completed` emits `assessment.completed` once per assessment, ever.',
  body: AssessmentStatusChange,
  responses: { 200: ok(Assessment.schema), 404: NO_RECORD, 409: REFUSED, 422: INVALID_FIELD },
});

export const assessmentsLifecycle = { setAssessmentStatus };
