/**
 * Id sequences (port `nextId`): one counter document per sequence, incremented atomically by
 * findAndModify, created on first use by the upsert.
 */
import { type Collection as DriverCollection } from 'mongodb';
import { assertIdCount, type SequenceName } from '../port.js';
import { guarded, translateMongoError } from './errors.js';

export interface CounterDoc {
  _id: SequenceName;
  value: number;
}

function isDuplicateKey(error: unknown): boolean {
  return error !== null && typeof error === 'object' && 'code' in error && (error.code === 11000 || error.code === 11001);
}

export function createSequences(
  counters: DriverCollection<CounterDoc>,
  limits: { operationMS: number },
): (sequence: SequenceName, count?: number) => Promise<number> {
  /** Adds `count` to the counter; the first id of the block is the value before. */
  async function increment(sequence: SequenceName, count: number): Promise<number> {
    const after = await counters.findOneAndUpdate(
      { _id: sequence },
      { $inc: { value: count } },
      { upsert: true, returnDocument: 'after', maxTimeMS: limits.operationMS },
    );
    if (after === null) throw new Error(`Counter ${sequence} was not returned by its upsert`);
    return after.value - count + 1;
  }

  return async (sequence, count = 1) => {
    assertIdCount(count);
    try {
      return await increment(sequence, count);
    } catch (error) {
      // Two first-ever upserts of the same counter can race: both miss, both insert, one gets
      // E11000. The counter exists now, so a second attempt increments it.
      if (isDuplicateKey(error)) return guarded('counters.findOneAndUpdate', () => increment(sequence, count));
      throw translateMongoError(error, 'counters.findOneAndUpdate');
    }
  };
}
