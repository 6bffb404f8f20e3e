// `tprm mcp` on stdio: one JSON-RPC message per line. The SDK's transport closes itself, and the process ends,
// when a line outgrows its buffer (10 MB); here a line over the limit of a request body is dropped on its
// way in and answered with a JSON-RPC error, and the server goes on with the next line (P113).
import type { Readable, Writable } from 'node:stream';
import { Transform } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MAX_BODY_BYTES } from '../http/edge.js';
import { JSONRPC_ERROR, jsonRpcError } from './errors.js';

const NEWLINE = 0x0a;

/**
 * The lines of `input`, each passed on whole (newline included) when it holds at most `maxBytes` bytes.
 * A longer one is dropped as it arrives, and `onOversized` is called once for it.
 */
export function boundedLines(input: Readable, maxBytes: number, onOversized: () => void): Readable {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Inside a line already found too long: its bytes are dropped until its newline.
  let dropping = false;
  const lines = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        if (!dropping) {
          // The newline does not count; a carriage return before it does (at most one byte of slack).
          pendingBytes += end - start - (newline === -1 ? 0 : 1);
          if (pendingBytes > maxBytes) {
            pending = [];
            pendingBytes = 0;
            dropping = true;
            onOversized();
          } else pending.push(chunk.subarray(start, end));
        }
        if (newline !== -1) {
          if (!dropping) this.push(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
          dropping = false;
        }
        start = end;
      }
      done();
    },
    flush(done) {
      if (!dropping && pending.length > 0) this.push(Buffer.concat(pending));
      done();
    },
  });
  return input.pipe(lines);
}

/** Serves `server` on `input` and `output` until the client closes `input`. */
export async function serveStdio(
  server: Server,
  input: Readable = process.stdin,
  output: Writable = process.stdout,
): Promise<void> {
  const oversized = jsonRpcError(
    JSONRPC_ERROR.invalidRequest,
    `Invalid Request: a message must not exceed ${MAX_BODY_BYTES} bytes.`,
  );
  // Lines of at most MAX_BODY_BYTES stay well inside the SDK's own buffer.
  const lines = boundedLines(input, MAX_BODY_BYTES, () => output.write(`${oversized}\n`));
  await server.connect(new StdioServerTransport(lines, output));
  await new Promise((resolve) => lines.once('end', resolve));
  await server.close();
}
