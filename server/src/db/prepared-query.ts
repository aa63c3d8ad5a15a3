import type { Compilable, CompiledQuery } from 'kysely';
import type { DbOrTx } from './database.ts';

/** Stands for the `index`-th argument while the query is built; found again among the compiled parameters. */
class Slot {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/**
 * A Kysely query built and compiled once, then run with new arguments: for the reads every request makes
 * (building and compiling a query costs more CPU than PostgreSQL spends answering a primary-key read).
 *
 * `build` is called once, with stand-ins for its arguments: it must pass each argument to Kysely as a
 * value (`where('id', '=', id)`, `limit(n)`) and never look at it (no `if (search)`, no `id.trim()`).
 * Constants written in the query stay as they are. The SQL keeps living in the repository that calls
 * this, and the row type is Kysely's own. It runs through Kysely's executor (`db.executeQuery`; on the
 * transaction's connection inside one): a plugin's result transform applies to every run, its query
 * transform once, when the query is compiled on the first call's `db`.
 *
 * @example
 * const byId = preparedQuery((db, id: string) => db.selectFrom('users').selectAll().where('id', '=', id));
 * const rows = await byId(db, userId);
 */
export function preparedQuery<A extends unknown[], R>(
  build: (db: DbOrTx, ...args: A) => Compilable<R>,
): (db: DbOrTx, ...args: A) => Promise<R[]> {
  let compiled: { query: CompiledQuery<R>; slots: (number | undefined)[] } | undefined;
  const compile = (db: DbOrTx, arity: number) => {
    // The stand-ins are typed as the arguments only for `build`, which never looks at them.
    const stand = Array.from({ length: arity }, (_, i) => new Slot(i)) as unknown as A;
    const query = build(db, ...stand).compile();
    const slots = query.parameters.map((p) => (p instanceof Slot ? p.index : undefined));
    const used = new Set(slots.filter((s) => s !== undefined));
    if (used.size !== arity) throw new Error('preparedQuery: every argument must be used as a query value');
    return { query, slots };
  };
  return async (db, ...args) => {
    compiled ??= compile(db, args.length);
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot === undefined ? query.parameters[i] : args[slot]));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
