// What `replay-push` shows while it delivers: a progress bar on a terminal (count, rate, time left), plain
// lines otherwise; rejections and waits are written above the bar, what the endpoint said made visible.
import type { DrainEvent } from './drain.ts';
import { visible } from './untrusted-text.ts';

/** Where the bar is drawn: the command's standard error (`CliIo` is one). */
export interface ProgressOutput {
  err(line: string): void;
  /** Raw text, for the bar's own control codes. */
  errRaw(text: string): void;
  isTTY: boolean;
}

/** A progress bar on a terminal (count, rate, time left); plain lines otherwise. */
export class Progress {
  private total = 0;
  private done = 0;
  private started = Date.now();
  private drawnAt = 0;
  private drawn = false;

  constructor(
    private readonly io: ProgressOutput,
    private readonly enabled: boolean,
  ) {}

  event(event: DrainEvent): void {
    if (!this.enabled) return;
    switch (event.type) {
      case 'start':
        this.total = event.runs;
        this.started = Date.now();
        return;
      case 'accepted':
        if (event.entry.kind !== 'run') return;
        this.done++;
        if (this.io.isTTY) this.draw();
        else this.io.err(`delivered ${visible(event.entry.id)}`);
        return;
      case 'rejected':
        this.line(
          `rejected ${event.entry.kind} ${visible(event.entry.id)}: ${event.answer.status} ` +
            `${visible(String(event.answer.body.error ?? ''))}: ${visible(String(event.answer.body.message ?? ''))}`,
        );
        return;
      case 'waiting':
        this.line(
          `${event.queued} deliveries not accepted yet (last answer: ${visible(event.message)}); retrying in ${event.seconds.toFixed(1)} s`,
        );
        return;
      case 'retry':
        return;
    }
  }

  end(): void {
    if (this.drawn) this.io.errRaw('\n');
    this.drawn = false;
  }

  private line(text: string): void {
    if (this.drawn) this.io.errRaw('\r\x1b[K');
    this.io.err(text);
    if (this.drawn) this.draw(true);
  }

  private draw(force = false): void {
    const now = Date.now();
    if (!force && now - this.drawnAt < 100 && this.done < this.total) return;
    this.drawnAt = now;
    const width = 30;
    const share = this.total ? Math.min(1, this.done / this.total) : 1;
    const rate = this.done / Math.max(0.001, (now - this.started) / 1000);
    const left = rate > 0 ? Math.ceil((this.total - this.done) / rate) : 0;
    const filled = Math.round(share * width);
    this.io.errRaw(
      `\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} runs  ${rate.toFixed(1)}/s  ${left} s left`,
    );
    this.drawn = true;
  }
}
