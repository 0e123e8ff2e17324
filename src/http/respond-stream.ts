// Writes a streamed answer (the exports, design.md §7): the status line and headers only
// once the answer starts, so a failure before its first byte is answered with the
// ResponseStatus envelope as any other; then chunks as the socket takes them (each write
// past the socket's buffer waits for its 'drain'), so memory stays flat whatever the
// size; and the client's going away aborts the answer at once.
import type { ServerResponse } from 'node:http';
import type { Exchange } from './exchange.js';
import type { BodySink, StreamedAnswer } from './operation.js';

class ResponseSink implements BodySink {
  readonly head: boolean;
  private readonly aborted = new AbortController();
  private drained: { resolve: () => void; reject: (err: Error) => void } | undefined;

  constructor(private readonly res: ServerResponse, method: string | undefined) {
    this.head = method === 'HEAD';
    res.on('drain', () => this.settle());
    // 'close' after 'finish' is the normal end; before it, the client went away.
    res.on('close', () => {
      if (res.writableFinished) return;
      this.aborted.abort();
      this.settle(new Error('The client closed the connection'));
    });
  }

  get signal(): AbortSignal {
    return this.aborted.signal;
  }

  get started(): boolean {
    return this.res.headersSent;
  }

  start(contentType: string, headers: Readonly<Record<string, string>>): void {
    const list: string[] = [];
    for (const name in headers) list.push(name, headers[name]!);
    // No Content-Length: Node sends the body chunked, and HTTP's last chunk marks it whole.
    this.res.writeHead(200, [...list, 'Content-Type', contentType]);
  }

  write(chunk: string): Promise<void> | undefined {
    if (this.aborted.signal.aborted) return Promise.reject(new Error('The client closed the connection'));
    if (this.res.write(chunk)) return undefined;
    return new Promise((resolve, reject) => (this.drained = { resolve, reject }));
  }

  end(complete: boolean): void {
    if (complete) this.res.end();
    // Without the last chunk the client's parser reports the body incomplete.
    else this.res.destroy();
  }

  private settle(err?: Error): void {
    const waiting = this.drained;
    this.drained = undefined;
    if (waiting === undefined) return;
    if (err) waiting.reject(err);
    else waiting.resolve();
  }
}

/**
 * Runs `answer` on the exchange's response. A failure before the answer started is thrown,
 * for the edge to answer; after it, the answer itself has said so in its body, and the
 * connection is ended without the last chunk if it is still open.
 */
export async function sendStream(ex: Exchange, answer: StreamedAnswer): Promise<void> {
  const sink = new ResponseSink(ex.res, ex.req.method);
  try {
    await answer.run(sink);
  } catch (err) {
    if (!sink.started) throw err;
    ex.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'streamed answer cut short');
    if (!ex.res.writableEnded) sink.end(false);
  }
}
