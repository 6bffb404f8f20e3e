// A collection as an async iterable: `for await (const item of list)` follows `meta.next_cursor` from page
// to page while `meta.has_more` says there is more, one request per page, as the caller consumes items.
import type { Collection } from './types.js';

/** The item type of a collection response. */
export type ItemOf<Page> = Page extends { data: readonly (infer Item)[] } ? Item : never;

export class Paginated<Page> implements AsyncIterable<ItemOf<Page>> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page>,
    private readonly startCursor: string | undefined,
  ) {}

  /** The pages, whole (with `meta`, and `currency` where the endpoint sends it). */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor = this.startCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const { meta } = page as Collection;
      // The audit feed also sets next_cursor on its last page (to resume later): has_more decides.
      if (!meta.has_more || meta.next_cursor === null) return;
      cursor = meta.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ItemOf<Page>, void, undefined> {
    for await (const page of this.pages()) yield* (page as Collection<ItemOf<Page>>).data;
  }

  /**
   * The items, page after page, in one array: all of them, or the first `limit` (no page is fetched past the
   * one that reaches it). A limit bounds the memory and the requests when a collection may be large.
   */
  async toArray(options: { limit?: number } = {}): Promise<ItemOf<Page>[]> {
    const { limit } = options;
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0))
      throw new TypeError(`toArray: limit must be a positive integer, not ${String(limit)}`);
    const items: ItemOf<Page>[] = [];
    if (limit === undefined) {
      for await (const item of this) items.push(item);
      return items;
    }
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
