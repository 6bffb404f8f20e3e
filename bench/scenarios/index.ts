// Every scenario, in the order they run.
import type { Scenario } from '../scenario.js';
import { auditResume } from './audit-resume.js';
import { eventsFeed } from './events-feed.js';
import { exportStream } from './export.js';
import { gaps } from './gaps.js';
import { getSupplier } from './get-supplier.js';
import { listDeep } from './list-deep.js';
import { listFirst } from './list-first.js';
import { postSuppliers } from './post-suppliers.js';
import { putAssets } from './put-assets.js';
import { sink } from './sink.js';
import { startup } from './startup.js';
import { webhooks } from './webhooks.js';

export const scenarios: readonly Scenario[] = [
  listFirst,
  listDeep,
  getSupplier,
  auditResume,
  eventsFeed,
  gaps,
  putAssets,
  postSuppliers,
  startup,
  webhooks,
  sink,
  exportStream,
];
