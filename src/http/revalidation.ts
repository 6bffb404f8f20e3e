// Conditional GET for the files that only change with a release (the API document and the reference page's
// files, decision P69): an entity tag on every copy, and 304 without a body when the client already holds it.
// Cache-Control stays no-store (decision 31), so browsers never ask; a client that keeps its own copy can.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

export const IfNoneMatchHeader = Type.String({
  description: 'Entity tags (`ETag`) of copies the client holds: the one of the current file gets a 304.',
});

/** Entity tags by file name, computed once: a name stands for one body for the life of the process. */
const tags = new Map<string, string>();

/** A strong entity tag of `body`: 128 bits of its SHA-256. */
function entityTag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/** Whether an If-None-Match value names `tag` (weak comparison, RFC 9110 13.1.2) or is `*`. */
function matches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((item) => {
    const candidate = item.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === tag;
  });
}

/**
 * Sends the file `name` (whose body never changes in this process) with its ETag and `headers`, or a 304
 * with only the ETag when the request's If-None-Match names it.
 */
export function sendRevalidatable(
  request: FastifyRequest,
  reply: FastifyReply,
  file: { name: string; body: Buffer | string },
  headers: Record<string, string>,
): FastifyReply {
  let tag = tags.get(file.name);
  if (tag === undefined) {
    tag = entityTag(file.body);
    tags.set(file.name, tag);
  }
  reply.header('etag', tag);
  if (matches(request.headers['if-none-match'], tag)) return reply.code(304).send();
  return reply.headers(headers).send(file.body);
}
