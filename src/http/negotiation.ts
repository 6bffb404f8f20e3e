// Which representation a request's Accept asks for: a list's page (JSON) or its whole collection as a stream
// of JSON lines (http/export.ts, P193). A module of its own, so the pipeline (route.ts) can choose the export's
// budget before authentication without importing the export's machinery.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { NDJSON } from '../contract/list.js';

/**
 * Whether a request's Accept asks for the stream: `application/x-ndjson` named with a non-zero quality at least
 * that of JSON (`application/json`, `application/*`, `*\/*`). Any other Accept, or none, keeps JSON (P193).
 */
export function asksForStream(accept: string | string[] | undefined): boolean {
  if (typeof accept !== 'string' || !accept.includes(NDJSON)) return false;
  let ndjson = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
      }
    }
    const media = type.trim().toLowerCase();
    if (media === NDJSON) ndjson = Math.max(ndjson, q);
    else if (media === 'application/json' || media === 'application/*' || media === '*/*')
      json = Math.max(json, q);
  }
  return ndjson > 0 && ndjson >= json;
}
