// The reports' lifecycle action on the management listener (management-api.md): render a report's PDF.
// Contract only; the handler is admin.ts.
import { Type } from 'typebox';
import { invalidRequest } from '../../contract/errors.js';
import { operation, operator } from '../../contract/operation.js';
import { NO_RECORD, ok, REFUSED } from '../../contract/operator.js';
import { Uuid } from '../../schema/fields.js';
import { Report } from './schema.js';

export const renderReport = operation({
  id: 'renderReport',
  method: 'POST',
  path: '/reports/:id/render',
  auth: operator(),
  tag: 'Lifecycle',
  summary: "Render a report's PDF (emits report.ready)",
  description: 'No body, or `{"workspace_id": …}` when imported records of several workspaces share the id.',
  body: Type.Object(
    { workspace_id: Type.Optional(Uuid) },
    { additionalProperties: false, title: 'ReportRender' },
  ),
  // No body is fine too: the handler judges it.
  validateBody: false,
  responses: {
    200: ok(Report.schema),
    400: {
      description:
        'A body that is not a JSON object, or that names another field than a uuid `workspace_id`.',
      errors: [invalidRequest('The request body must be a JSON object.')],
    },
    404: NO_RECORD,
    409: REFUSED,
  },
});

export const reportsLifecycle = { renderReport };
