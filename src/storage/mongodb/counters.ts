/**
 * Id sequences (port `nextId`): one counter document per sequence, incremented atomically by
 * findAndModify, created on first use by the upsert.
 */
import { type Collection as DriverCollection } from 'mongodb';
import { type SequenceName } from '../port.js';
import { guarded, translateMongoError } from './errors.js';

export interface CounterDoc {
  _id: SequenceName;
  value: number;
}

function isDuplicateKey(error: unknown): boolean {
  return (
    error !== null && typeof error === 'object' && 'code' in error && (error.code === 11000 || error.code === 11001)
  );
}

export function createSequences(
  counters: DriverCollection<CounterDoc>,
  limits: { operationMS: number },
): (sequence: SequenceName) => Promise<number> {
  async function increment(sequence: SequenceName): Promise<number> {
    const after = await counters.findOneAndUpdate(
      { _id: sequence },
      { $inc: { value: 1 } },
      { upsert: true, returnDocument: 'after', maxTimeMS: limits.operationMS },
    );
    if (after === null) throw new Error(`Counter ${sequence} was not returned by its upsert`);
    return after.value;
  }

  return async (sequence) => {
    try {
      return await increment(sequence);
    } catch (error) {
      // Two first-ever upserts of the same counter can race: both miss, both insert, one gets
      // E11000. The counter exists now, so a second attempt increments it.
      if (isDuplicateKey(error)) return guarded('counters.findOneAndUpdate', () => increment(sequence));
      throw translateMongoError(error, 'counters.findOneAndUpdate');
    }
  };
}
