// A whole collection as one stream (`Accept: application/x-ndjson`): `for await (const item of export)` yields
// every matching item, in the list's order, from one snapshot of the server's data, reading the response as it
// arrives (one request, whatever the size). The server ends a complete stream with a line holding the cursor
// that continues the list after it (`nextCursor`: pass it later as `cursor` to `list`, `listPage` or `export`
// to receive only what came after); a stream that fails midway ends with an error line, thrown here as the
// error of its code. A stream cut without either line throws TprmConnectionError: never a silent short export.
import { errorFromResponse, TprmConnectionError } from './errors.js';
import { type LastResponse, withResponse } from './transport.js';

export const NDJSON = 'application/x-ndjson';

export class Export<Item> implements AsyncIterable<Item> {
  #nextCursor: string | null | undefined;
  #count: number | undefined;
  #lastResponse: LastResponse | undefined;

  constructor(private readonly open: () => Promise<Response>) {}

  /** After the loop: the cursor after the last item exported (the one given when none; null when neither). */
  get nextCursor(): string | null | undefined {
    return this.#nextCursor;
  }

  /** After the loop: the number of items the server exported. */
  get count(): number | undefined {
    return this.#count;
  }

  /** The response's request id and rate-limit headers, once the stream has begun. */
  get lastResponse(): LastResponse | undefined {
    return this.#lastResponse;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    const response = await this.open();
    this.#lastResponse = withResponse({}, response).lastResponse;
    if (!response.body) throw new TprmConnectionError('the export has no body');
    const decoder = new TextDecoder();
    let buffered = '';
    let ended = false;
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let newline = buffered.indexOf('\n');
        while (newline !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf('\n');
          if (ended) throw new TprmConnectionError('the export sent a line after its last one');
          const value = JSON.parse(line) as Record<string, unknown>;
          const keys = Object.keys(value);
          if (keys.length === 1 && keys[0] === 'meta') {
            const meta = value.meta as { next_cursor: string | null; count: number };
            this.#nextCursor = meta.next_cursor;
            this.#count = meta.count;
            ended = true;
          } else if (keys.length === 1 && keys[0] === 'error') {
            throw await errorFromResponse(new Response(line, { status: 500, headers: response.headers }));
          } else yield value as Item;
        }
      }
    } finally {
      // Leaving the loop early (break, an error) closes the stream: the server ends the export at once.
      await reader.cancel().catch(() => undefined);
    }
    if (!ended) throw new TprmConnectionError('the export ended before its last line');
  }

  /** Every item, in one array (`nextCursor` and `count` are set once it resolves). */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
