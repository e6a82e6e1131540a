/** A bet series's xstate state value as one dotted name, e.g. `{ settling: 'closing' }` -> `settling.closing`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const [key, inner] = Object.entries(value)[0] ?? [];
    if (key === undefined) return 'unknown';
    const rest = stateName(inner);
    return rest === 'unknown' ? key : `${key}.${rest}`;
  }
  return 'unknown';
}
