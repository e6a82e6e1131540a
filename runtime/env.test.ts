import { describe, expect, it } from 'vitest';
import { bigUint, integer, oneOf, optionalText, port, readEnv } from './env.ts';
import { ConfigError } from '../kernel/errors.ts';

describe('readEnv', () => {
  const fields = { P: port(8080), N: integer(2000, 1), B: bigUint(100n), M: oneOf(['A', 'B'] as const), U: optionalText() };

  it('applies defaults when variables are absent or empty', () => {
    expect(readEnv(fields, { U: '' })).toEqual({ P: 8080, N: 2000, B: 100n, M: 'A', U: undefined });
  });

  it('parses given values', () => {
    expect(readEnv(fields, { P: '9000', N: '5', B: '123456789012345678', M: 'B', U: 'x' })).toEqual({
      P: 9000,
      N: 5,
      B: 123456789012345678n,
      M: 'B',
      U: 'x',
    });
  });

  it.each([
    ['P', '70000'],
    ['P', 'abc'],
    ['N', '0'],
    ['N', '-3'],
    ['B', '1.5'],
    ['M', 'C'],
  ])('names the bad variable %s=%s', (name, value) => {
    expect(() => readEnv(fields, { [name]: value })).toThrowError(ConfigError);
    expect(() => readEnv(fields, { [name]: value })).toThrowError(new RegExp(`^${name}: `));
  });
});
