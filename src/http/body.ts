// Reading a response body so that it always ends: on the caller's abort (even where the
// runtime's fetch would leave a read pending), and with an idleTimeout when no byte comes
// for that long. The abortable sleep used between retries lives here too.
import { abortReason, IdleTimeoutError } from "../base/index.js";

/** What body reads need: the idle limit, and the provider name for its error. */
export interface ReadSettings {
  provider: string;
  /** ms without a byte before a read fails; undefined = no limit. */
  idleTimeout: number | undefined;
}

/**
 * The whole body as text. Read chunk by chunk (see chunkReader) so that an abort, or with an
 * idleTimeout a body that stops sending, ends the read.
 */
export async function readText(http: ReadSettings, res: Response, signal: AbortSignal | undefined): Promise<string> {
  if ((!http.idleTimeout && !signal) || !res.body) return res.text();
  let text = "";
  await readChunks(http, res.body, signal, (t) => {
    text += t;
  });
  return text;
}

/**
 * Feeds `body` to `onText` as decoded text, chunk by chunk, under chunkReader's rules (the
 * caller's abort and the idle limit end it). The body is cancelled when a read or `onText`
 * throws.
 */
export async function readChunks(
  http: ReadSettings,
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
  onText: (text: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const reads = chunkReader(http, reader, signal);
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const chunk = await reads.read();
      if (chunk.done) break;
      onText(decoder.decode(chunk.value, { stream: true }));
    }
    onText(decoder.decode());
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  } finally {
    reads.close();
  }
}

/**
 * Reads a response body chunk by chunk; each read settles on the caller's abort even when
 * the body does not. Node's fetch (undici) never settles a pending read when the signal
 * aborts after the whole response has arrived but before it was read (the abort no longer
 * reaches the body), so relying on fetch to end the body would leave the run waiting
 * forever. With an idleTimeout a read also fails when no byte comes for that long. One
 * abort listener serves the whole body (one per read is a measurable share of a streamed
 * request); close() when done reading.
 */
export function chunkReader(
  http: ReadSettings,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal | undefined,
): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; close(): void } {
  const ms = http.idleTimeout;
  if (!ms && !signal) return { read: () => reader.read(), close: () => {} };
  // Reads are sequential: at most one is pending, and `fail` settles it early.
  let fail: ((error: unknown) => void) | undefined;
  const onAbort = () => fail?.(abortReason(signal!));
  // Listening before read(): a body's pull may run (and the abort land) inside read() itself.
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    read() {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(abortReason(signal));
        let timer: ReturnType<typeof setTimeout> | undefined;
        const done = () => {
          clearTimeout(timer);
          if (fail === failThis) fail = undefined;
        };
        const failThis = (error: unknown) => {
          done();
          reject(error);
        };
        fail = failThis;
        if (ms) timer = setTimeout(() => failThis(new IdleTimeoutError(http.provider, ms)), ms);
        reader.read().then(
          (r) => {
            done();
            resolve(r);
          },
          (e) => {
            done();
            reject(signal?.aborted ? abortReason(signal) : e);
          },
        );
      });
    },
    close() {
      fail = undefined;
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
