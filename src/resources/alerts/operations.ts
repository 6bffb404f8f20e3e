// GET /alerts, GET /alerts/{id} and GET /insights: the contracts (handlers: routes.ts; risk-data-api.md "Alerts and insights",
// "Limits"; decisions 12, 15, 35, 38, 40).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { getOperation, listOperation, updatedSinceParam } from '../../contract/list.js';
import { apiKey, operation } from '../../contract/operation.js';
import { collectionSchema } from '../../schema/collection.js';
import { StringEnum } from '../../schema/fields.js';
import { Alert, AlertRow, AlertScope, AlertSeverity, Insight } from './schema.js';

const TAG = 'Alerts and insights';

export const listAlerts = operation({
  id: 'listAlerts',
  method: 'GET',
  path: '/alerts',
  auth: apiKey('alerts:read'),
  tag: TAG,
  summary: 'List alerts, newest first (not cursor-paged)',
  description:
    '`limit` applies per scope: without `scope`, up to `limit` supplier alerts and up to `limit` org alerts, ' +
    'merged newest first (so up to twice `limit` rows). One response: `has_more` is always false and ' +
    '`next_cursor` null, even when `limit` left older alerts out. `updated_since` keeps the alerts written or ' +
    'changed at or after the instant, before `limit` applies.',
  // No cursor parameter: /alerts is not cursor-paged (decision 40), so `cursor` is an unknown parameter (400).
  query: Type.Object(
    {
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 200,
          default: 50,
          description: 'Rows per scope, 1 to 200 (default 50). Above 200 is rejected.',
        }),
      ),
      scope: Type.Optional(StringEnum(AlertScope, 'Omit for both scopes.')),
      severity: Type.Optional(StringEnum(AlertSeverity)),
      unresolved: Type.Optional(
        Type.Boolean({
          description: 'true: alerts not resolved (resolved_at null); false: resolved alerts.',
        }),
      ),
      updated_since: updatedSinceParam(Alert),
    },
    { additionalProperties: false },
  ),
  responses: { 200: { description: 'The alerts.', schema: collectionSchema(AlertRow) } },
});

// One alert by id (issue 28): a receiver of `alert.created` holds the id and fetches the record with it.
export const getAlert = getOperation({
  id: 'getAlert',
  path: '/alerts/:id',
  scope: 'alerts:read',
  tag: TAG,
  summary: 'Get one alert',
  resource: Alert,
  noun: 'alert',
});

export const listInsights = listOperation({
  id: 'listInsights',
  path: '/insights',
  scope: 'alerts:read',
  tag: TAG,
  summary: 'List insights, newest first',
  resource: Insight,
  fieldFilters: ['category', 'severity'],
});

/** In the specification's order. */
export const alertsOperations = [listAlerts, getAlert, listInsights];
