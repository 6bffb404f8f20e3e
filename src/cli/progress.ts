// Progress of long commands (`seed`, `store copy`) on stderr, so `--json` output on stdout stays parseable.
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number): void;
  log(line: string): void;
  stop(completed: boolean): void;
}

/** What is counted: the command's name and the unit of `done`. */
interface Counted {
  task: string;
  unit: string;
}

const perSecond = (started: number, done: number) =>
  Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));

/** A progress bar on a terminal; on a pipe or a file, one plain line every 2 s and a last one at the end. */
export function progress(total: number, counted: Counted): Progress {
  return process.stderr.isTTY
    ? progressBar(total, Date.now(), counted)
    : progressLines(total, Date.now(), counted);
}

function progressBar(total: number, started: number, { task, unit }: Counted): Progress {
  const bars = new cliProgress.MultiBar(
    {
      format: `${task} {bar} {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
      hideCursor: true,
      barsize: 30,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const bar = bars.create(total, 0, { rate: 0 });
  return {
    update: (done) => bar.update(done, { rate: perSecond(started, done) }),
    log: (line) => bars.log(`${line}\n`),
    stop: () => bars.stop(),
  };
}

function progressLines(total: number, started: number, { task, unit }: Counted): Progress {
  let last = started;
  let current = 0;
  const line = (done: number) => {
    const rate = perSecond(started, done);
    const eta = rate > 0 ? Math.ceil((total - done) / rate) : 0;
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    process.stderr.write(`${task}: ${done}/${total} ${unit} (${percent}%), ${rate} ${unit}/s, ETA ${eta}s\n`);
  };
  return {
    update: (done) => {
      current = done;
      if (Date.now() - last >= 2000) {
        last = Date.now();
        line(done);
      }
    },
    log: (text) => process.stderr.write(`${text}\n`),
    stop: (completed) => {
      if (completed) line(current);
    },
  };
}
