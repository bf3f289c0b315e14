// Reads a columns body (columns.ts) as its bytes stream in, handing each column's values on as they arrive, so
// the cockpit never holds a whole body (growing and copying buffers cost more than the runs themselves). A chunk
// may end inside a value and a typed view needs an aligned start: each chunk's slice of a column is copied into
// one reused aligned scratch buffer (after the bytes the last chunk cut), and the sink gets a view of the whole
// values there, which it must copy before it returns.
import {
  ColumnsFormatError,
  headerBytes,
  readHeader,
  type ColumnPlace,
  type ColumnsHeader,
  type ColumnsSink,
} from './columns.ts';

export class ColumnsReader {
  header: ColumnsHeader | null = null;
  private places: ColumnPlace[] = [];
  private sink: ColumnsSink | null = null;
  /** Bytes held before the header is whole, or before a sink is given. */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  /** How many bytes the header is known to take: its length's four, until they are read. */
  private headerLength = 4;
  /** Bytes of the body read so far (not counting held ones), and the column they are in. */
  private position = 0;
  private current = 0;
  private scratch = new Uint8Array(64 * 1024);
  /** The first bytes of a value the previous chunk cut. */
  private carried = 0;

  /** Takes the next bytes of the body. Throws ColumnsFormatError for a header that is not a columns header. */
  push(chunk: Uint8Array): void {
    if (!this.sink) {
      this.held.push(chunk);
      this.heldBytes += chunk.byteLength;
      if (!this.header) this.readHeaderFromHeld();
      return;
    }
    this.consume(chunk);
  }

  /** Gives the values a place to go; the bytes held until now go there first. The header must have been read. */
  start(sink: ColumnsSink): void {
    this.sink = sink;
    const held = this.held;
    this.held = [];
    for (const chunk of held) this.consume(chunk);
  }

  /** The body ended: throws ColumnsFormatError unless every column arrived whole. */
  end(): void {
    if (!this.header) throw new ColumnsFormatError('The columns body ends before its header does.');
    if (this.current < this.places.length)
      throw new ColumnsFormatError('The columns body ends before its last column.');
  }

  private readHeaderFromHeld() {
    // Joined only once the bytes it needs are all held: first its length, then the header itself.
    if (this.heldBytes < this.headerLength) return;
    const bytes = this.held.length === 1 ? this.held[0]! : concat(this.held, this.heldBytes);
    this.held = [bytes];
    this.headerLength = headerBytes(bytes)!;
    const read = readHeader(bytes);
    if (!read) return;
    this.header = read.header;
    this.places = read.columns;
  }

  private consume(chunk: Uint8Array) {
    let at = 0;
    for (;;) {
      const place = this.places[this.current];
      if (!place) return;
      // A column is done once its last byte is read (an empty one as soon as it is reached).
      if (this.position === place.end && this.position >= place.start) {
        this.current++;
        continue;
      }
      if (at === chunk.byteLength) return;
      // The header and the padding before each column.
      if (this.position < place.start) {
        const skip = Math.min(place.start - this.position, chunk.byteLength - at);
        at += skip;
        this.position += skip;
        continue;
      }
      const take = Math.min(place.end - this.position, chunk.byteLength - at);
      const size = place.Type.BYTES_PER_ELEMENT;
      const bytes = this.carried + take;
      const whole = bytes - (bytes % size);
      if (this.scratch.byteLength < bytes) this.scratch = new Uint8Array(Math.max(bytes, this.scratch.byteLength * 2));
      this.scratch.set(chunk.subarray(at, at + take), this.carried);
      if (whole > 0) {
        const from = (this.position - this.carried - place.start) / size;
        this.sink!.column(
          place.kind,
          place.field,
          from,
          new place.Type(this.scratch.buffer, 0, whole / size),
          place.decimals,
        );
        // The cut value's first bytes move to the front for the next chunk.
        this.scratch.copyWithin(0, whole, bytes);
      }
      this.carried = bytes - whole;
      at += take;
      this.position += take;
    }
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
