// A collection of the Import document (management-api.md "Import document"), as a resource area declares it
// in its import.ts; resources/imports.ts lists them in dependency order for the import (management/import.ts).
import type { Resource } from '../schema/resource.js';
import type { UnitOfWork } from './unit-of-work.js';

export interface ImportCollection {
  /** Collection name in the document. */
  name: string;
  resource: Resource;
  /** Fields that hold the id of a record of another collection. */
  refs?: Record<string, string>;
  /** Field sets unique within the workspace (compared after `normalize`). */
  unique?: string[][];
  /** Values for stored columns a record may omit. */
  defaults?: Record<string, unknown>;
  /** Rules spanning several fields of one record (the record schema checks fields one by one). */
  check?(record: Record<string, unknown>): Record<string, string> | null;
  /** Adjusts a valid record before it is stored (e.g. lowercase a domain, set internal columns). */
  normalize?(record: Record<string, unknown>): void;
  /** Internal columns `normalize` may set, besides the resource's own. */
  internalColumns?: string[];
  /** Computed fields of related views (e.g. a supplier's assessment_count) that an import ignores. */
  ignore?: string[];
  /**
   * Writes the records in place of the plain insert (the audit trail appends them to its chain, P102), after
   * every other collection; called also when the document has none. Returns what the import's own audit entry
   * records of the write; a record it refuses is reported through `fail`, and the import is then a 422.
   */
  write?(
    unit: UnitOfWork,
    rows: Record<string, unknown>[],
    fail: (path: string, message: string) => void,
  ): Promise<Record<string, unknown>>;
}
