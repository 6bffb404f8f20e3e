// The OCSF 1.8.0 mappings (docs/ocsf.md): one pure function per kind of item, and the context the service
// gives them (its version, read once).
import { packageVersion } from '../version.js';
import type { OcsfContext } from './common.js';

export { type AuditItem, auditEntryToOcsf } from './audit.js';
export type { OcsfContext, OcsfEvent } from './common.js';
export { type EventItem, webhookEventToOcsf } from './events.js';

let version: string | undefined;

/** The context of an item of the workspace `workspaceId` mapped by this process. */
export function ocsfContext(workspaceId: string): OcsfContext {
  version ??= packageVersion();
  return { workspaceId, productVersion: version };
}
