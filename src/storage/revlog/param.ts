import { sql, type RawBuilder } from 'kysely';

/** A named placeholder inside a kysely query that is compiled once and run many times. */
export class ParamSlot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/**
 * A parameter whose value is supplied when the compiled statement runs: kysely compiles it like any
 * other value (a positional placeholder), and the marker object left in `parameters` tells the
 * runner which named argument goes in that position.
 */
export function param<T>(name: string): RawBuilder<T> {
  return sql<T>`${new ParamSlot(name)}`;
}

/** Positions of a compiled query's parameters: named slots or constants kysely parameterised. */
export type Slots = ReadonlyArray<ParamSlot | { constant: unknown }>;

export function slotsOf(parameters: ReadonlyArray<unknown>): Slots {
  return parameters.map((p) => (p instanceof ParamSlot ? p : { constant: p }));
}

/** the positional arguments of a compiled query for these named values */
export function bindSlots(slots: Slots, values: Readonly<Record<string, unknown>>): unknown[] {
  return slots.map((s) => {
    if (!(s instanceof ParamSlot)) return s.constant;
    const v = values[s.name];
    if (v === undefined) throw new TypeError(`missing query parameter ${s.name}`);
    return v;
  });
}
