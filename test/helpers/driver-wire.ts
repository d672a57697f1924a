/**
 * A real driver Collection whose commands never leave the process. The driver's own code runs
 * above the wire: `insertMany` builds its bulk operation, splits it into batches, merges each
 * batch's reply into a BulkWriteResult and throws the MongoBulkWriteError it builds from them.
 * Only `executeOperation` (one command to one server, retries included) is replaced: each command
 * is answered by the next scripted reply, a server reply document as the driver returns it
 * (`response.toObject()`), or an error as the driver throws it (MongoServerError for `ok: 0`,
 * MongoWriteConcernError for a reply with `writeConcernError`, MongoNetworkError, …).
 *
 * The driver's internals used here are those of the installed version (node_modules/mongodb/lib):
 * `operations/execute_operation.js` exports `executeOperation`, which `bulk/common.js` looks up on
 * every batch, and a bulk operation needs only `lastHello()` and `s.options` of the topology.
 */
import { createRequire } from 'node:module';
import { type Collection, type Document, MongoClient } from 'mongodb';

const require = createRequire(import.meta.url);

interface ExecuteOperationModule {
  executeOperation: (client: unknown, operation: { commandName?: string; documents?: Document[] }, ...rest: unknown[]) => Promise<unknown>;
}

/** What the next command gets: its reply document, or an error to throw (a function may inspect the command). */
export type ScriptedReply = Document | Error | ScriptedAnswer;
type ScriptedAnswer = (operation: { commandName?: string; documents?: Document[] }) => Document;

export interface ScriptedDriver {
  collection<T extends Document>(name: string): Collection<T>;
  /** Queues replies, one per command, in order. */
  reply(...replies: ScriptedReply[]): void;
  /** The commands sent so far: their name and, for inserts, the documents of the batch. */
  readonly sent: Array<{ commandName: string | undefined; documents: Document[] | undefined }>;
  /** Puts the driver's executeOperation back. */
  restore(): void;
}

/**
 * `maxWriteBatchSize`: what the server's hello would announce (the driver's default is 1000); a
 * smaller one splits an insertMany into several commands (the driver puts at most
 * maxWriteBatchSize - 1 documents in each).
 */
export function scriptedDriver(options: { maxWriteBatchSize?: number } = {}): ScriptedDriver {
  const executeModule = require('mongodb/lib/operations/execute_operation.js') as ExecuteOperationModule;
  const original = executeModule.executeOperation;
  const queue: ScriptedReply[] = [];
  const sent: ScriptedDriver['sent'] = [];
  const client = new MongoClient('mongodb://127.0.0.1:1/calendar', { retryWrites: true, writeConcern: { w: 'majority', wtimeoutMS: 8000 } });
  const hello = options.maxWriteBatchSize === undefined ? {} : { maxWriteBatchSize: options.maxWriteBatchSize };
  const topology = { lastHello: () => hello, s: { options: {} } };
  (client as unknown as { topology: unknown }).topology = topology;
  executeModule.executeOperation = async (target, operation, ...rest) => {
    if (target !== client) return original(target, operation, ...rest);
    sent.push({ commandName: operation.commandName, documents: operation.documents });
    const next = queue.shift();
    if (next === undefined) throw new Error(`scriptedDriver: no reply queued for ${String(operation.commandName)}`);
    if (next instanceof Error) throw next;
    // A cast: `typeof` cannot tell a function from a Document, whose fields may be anything.
    if (typeof next === 'function') return (next as ScriptedAnswer)(operation);
    return next;
  };
  return {
    collection: <T extends Document>(name: string) => client.db('calendar').collection<T>(name),
    reply: (...replies) => void queue.push(...replies),
    sent,
    restore: () => {
      executeModule.executeOperation = original;
    },
  };
}

/** The error the real driver's unordered insertMany throws for these replies (fails the test if it resolves). */
export async function insertManyError(documents: Document[], ...replies: ScriptedReply[]): Promise<unknown> {
  const driver = scriptedDriver();
  try {
    driver.reply(...replies);
    await driver.collection('events').insertMany(documents, { ordered: false });
  } catch (error) {
    return error;
  } finally {
    driver.restore();
  }
  throw new Error('insertManyError: the driver reported success');
}
