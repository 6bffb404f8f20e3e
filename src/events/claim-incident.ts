// A worker's claim loop (the webhook dispatcher, the sink worker) polls the database every few hundred
// milliseconds: while the database is down or restarting, its failure is logged once per incident, not once
// per poll, and its end once.
import type { Logger } from 'pino';

export interface ClaimIncident {
  /** A claim succeeded: ends an incident, if one was open. */
  succeeded(): void;
  /** A claim failed: opens an incident, logged if none was open. */
  failed(error: unknown): void;
}

/** `worker` names the loop in its log lines; `what` is what it claims. */
export function claimIncident(logger: Logger, worker: string, what: string): ClaimIncident {
  let failing = false;
  return {
    succeeded() {
      if (failing) logger.info(`${worker}: claiming again`);
      failing = false;
    },
    failed(error) {
      if (!failing)
        logger.warn({ err: (error as Error).message }, `${worker}: cannot claim ${what}; retrying`);
      failing = true;
    },
  };
}
