/**
 * The default of an exhaustive switch over a tagged union: it compiles only when every kind has
 * its case, so a new kind is a compile error at each switch that must handle it. Reached at run
 * time only through a value the schema never allowed (a bug): it throws, naming the value.
 */
export function unreachable(value: never, what = 'kind'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
