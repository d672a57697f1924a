/**
 * What the server prints once it listens: where to reach it and its reference, the storage and
 * whether the data outlives the process, and every mode a person could otherwise mistake for a
 * fault (no writes possible, data kept in memory only). Pure: the facts in, the lines out.
 */

export type StorageFacts =
  | { kind: 'durable'; dataDir: string }
  | { kind: 'in-memory' }
  | { kind: 'mongodb'; hosts: string | null; database: string }
  | { kind: 'memory-server'; database: string };

export interface StartupFacts {
  /** HOST as configured. */
  host: string;
  /** The port the server listens on (PORT=0 picks a free one). */
  port: number;
  storage: StorageFacts;
  /** API_TOKENS: how many tokens of each role. */
  tokens: { editor: number; viewer: number };
  /** What start-up seeding created per resource, when it ran. */
  seeded: ReadonlyArray<readonly [resource: string, created: number]> | null;
}

/** Addresses that mean every interface: no browser can open them, so the summary names localhost. */
const ALL_INTERFACES = new Set(['0.0.0.0', '::', '[::]']);

function urlHost(host: string): string {
  if (ALL_INTERFACES.has(host)) return 'localhost';
  // An IPv6 literal needs brackets in a URL.
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function startupSummary(facts: StartupFacts): string[] {
  const origin = `http://${urlHost(facts.host)}:${facts.port}`;
  const lines = [
    ALL_INTERFACES.has(facts.host)
      ? `calendar-service listening on all interfaces (HOST=${facts.host}) at port ${facts.port}: ${origin}`
      : `calendar-service listening on ${origin}`,
    `API docs: ${origin}/docs/`,
  ];

  const { storage } = facts;
  switch (storage.kind) {
    case 'durable':
      lines.push(`storage: embedded, data in ${storage.dataDir} (durable)`);
      break;
    case 'in-memory':
      lines.push('storage: embedded, in memory: data is lost when the process exits (DATA_DIR is not set)');
      break;
    case 'mongodb':
      lines.push(`storage: MongoDB${storage.hosts === null ? '' : ` at ${storage.hosts}`} (database ${storage.database})`);
      break;
    case 'memory-server':
      lines.push(`storage: MongoDB in-memory server (database ${storage.database}): data is lost when the process exits`);
      break;
  }

  if (facts.tokens.editor === 0) {
    lines.push(
      facts.tokens.viewer === 0
        ? 'read-only: no API_TOKENS set, writes answer 401'
        : 'read-only: API_TOKENS has no editor token, writes answer 401 (403 with a viewer token)',
    );
  }

  if (facts.seeded !== null) {
    const created = facts.seeded.map(([resource, n]) => `${n} ${resource}`).join(', ');
    lines.push(`seed: the store was empty, loaded ${created}`);
  }
  return lines;
}
