/** Assertion for program refusals: the transaction failed with the IDL error `name` (code and logged name). */
import { expect } from 'vitest';
import { ERRORS } from '../index.ts';
import type { Sent } from './svm.ts';

/** Fails unless `sent` failed with custom code of `name` and Anchor's log line names the same error. */
export function expectRefused(sent: Sent, name: string): void {
  const info = ERRORS.find((e) => e.name === name);
  if (!info) throw new Error(`no error ${name} in the IDL`);
  if (sent.ok) throw new Error(`expected ${name} (${info.code}), but the transaction succeeded`);
  expect({ code: sent.code, anchorName: sent.anchorName }, sent.logs.join('\n')).toEqual({ code: info.code, anchorName: name });
}
