import { describe, expect, it } from 'vitest';
import { PlacementAdmission } from './admission.ts';

describe('PlacementAdmission', () => {
  it('runs up to its limit at once, refuses the next with busy (counted), and admits again once one ends', async () => {
    let shed = 0;
    const admission = new PlacementAdmission(2, () => shed++);
    const gates: Array<() => void> = [];
    const held = () => new Promise<string>((resolve) => gates.push(() => resolve('placed')));
    const a = admission.run(held);
    const b = admission.run(held);
    expect(admission.placing).toBe(2);
    const refused = await admission.run(held);
    expect(refused).toMatchObject({ ok: false, code: 'busy' });
    expect(shed).toBe(1);
    gates[0]?.();
    expect(await a).toBe('placed');
    expect(admission.placing).toBe(1);
    const c = admission.run(async () => 'again');
    expect(await c).toBe('again');
    gates[1]?.();
    expect(await b).toBe('placed');
    expect(admission.placing).toBe(0);
  });

  it('a placement that fails leaves its place free', async () => {
    const admission = new PlacementAdmission(1);
    await expect(admission.run(() => Promise.reject(new Error('chain down')))).rejects.toThrow('chain down');
    expect(await admission.run(async () => 'next')).toBe('next');
  });
});
